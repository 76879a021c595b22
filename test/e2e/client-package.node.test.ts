/**
 * `npm run build:client` makes a package another project installs: packed with `npm pack`,
 * installed from the tarball into a fresh project (plain Node ESM, no aliases or path mappings),
 * `weft/client` and `weft/react` import there, tsc finds their types (checking the package's own
 * declarations too, which reach no Workers-only type), and a WeftClient from the
 * installed package creates a thread on the shared `wrangler dev` and sees its turn over the socket.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ROOT } from "../sources.node.js";
import { sharedWeft, type DevServer } from "./support.js";

const run = promisify(execFile);
const app = mkdtempSync(path.join(tmpdir(), "weft-client-package-"));
const pkg = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8"));
let weft: DevServer;

beforeAll(async () => {
  weft = await sharedWeft("dev");
  await run("npm", ["run", "build:client", "--silent"], { cwd: ROOT });
  await run("npm", ["pack", "--silent", "--pack-destination", app], { cwd: path.join(ROOT, "dist/weft-client") });
  const tarball = readdirSync(app).find((f) => f.endsWith(".tgz"));
  if (!tarball) throw new Error(`npm pack left no tarball in ${app}`);
  writeFileSync(path.join(app, "package.json"), JSON.stringify({ name: "weft-client-user", private: true, type: "module" }));
  // react and its types as a front end would have them (weft/react's peer dependency).
  const react = [`react@${pkg.devDependencies.react}`, `@types/react@${pkg.devDependencies["@types/react"]}`];
  await run("npm", ["install", "--no-audit", "--no-fund", "--silent", `./${tarball}`, ...react], { cwd: app });
});
afterAll(async () => {
  await weft?.stop();
  rmSync(app, { recursive: true, force: true });
});

it("installs from its tarball with only the client's entries exported", () => {
  const installed = JSON.parse(readFileSync(path.join(app, "node_modules/weft/package.json"), "utf8"));
  expect(Object.keys(installed.exports)).toEqual(["./client", "./react", "./package.json"]);
  expect(installed.dependencies).toEqual({ partysocket: pkg.dependencies.partysocket, zod: pkg.dependencies.zod });
  expect(installed.peerDependencies).toEqual({ react: pkg.peerDependencies.react });
});

it("type-checks a file that uses WeftClient's and useThread's types", async () => {
  writeFileSync(
    path.join(app, "check.ts"),
    [
      'import { WeftClient, isEvent, type EventFrame, type ThreadInfo } from "weft/client";',
      'import { useThread } from "weft/react";',
      'const weft = new WeftClient({ url: "http://127.0.0.1:8787" });',
      'const info: ThreadInfo = await weft.getThread("t");',
      'export const status: "idle" | "running" | "waiting" = info.status;',
      'weft.subscribe("t", { onEvent: (f: EventFrame) => { if (isEvent(f, "tool_call_finished")) { const ms: number = f.data.durationMs; void ms; } } });',
      "// @ts-expect-error a thread id is a string: the types are weft's, not any",
      "void weft.getThread(42);",
      "export const hook: typeof useThread = useThread;",
      "",
    ].join("\n"),
  );
  const tsc = path.join(ROOT, "node_modules/typescript7/bin/tsc");
  // What a new project's tsconfig holds (tsc --init, Vite, Next skip checking libraries' .d.ts), and
  // a stricter one that checks them: a browser project has no Workers types to resolve them with.
  for (const skipLibCheck of [true, false]) {
    const compilerOptions = { module: "nodenext", target: "es2022", strict: true, noEmit: true, skipLibCheck, lib: ["es2023", "dom"] };
    writeFileSync(path.join(app, "tsconfig.json"), JSON.stringify({ compilerOptions, files: ["check.ts"] }));
    const checked = await run(process.execPath, [tsc, "-p", "."], { cwd: app }).catch((e: { stdout: string }) => e);
    expect({ skipLibCheck, errors: checked.stdout }).toEqual({ skipLibCheck, errors: "" });
  }
  // The package ships only declarations the entries reach (as tsc resolves them), no other server file's.
  const listed = await run(process.execPath, [tsc, "-p", ".", "--listFilesOnly"], { cwd: app });
  const types = path.join(app, "node_modules/weft/types");
  const reached = listed.stdout.split("\n").filter((f) => f.startsWith(types)).map((f) => path.relative(types, f));
  const shipped = readdirSync(types, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".d.ts"));
  expect(shipped.sort()).toEqual(reached.sort());

  // The same check sees a wrong use: the file above is really checked against weft's types.
  writeFileSync(path.join(app, "check.ts"), 'import { WeftClient } from "weft/client";\nnew WeftClient({ url: 1 });\n');
  const refused = await run(process.execPath, [tsc, "-p", "."], { cwd: app }).catch((e: { stdout: string }) => e);
  expect(refused.stdout).toMatch(/check\.ts\(2,.*TS2322/);
});

it("runs in plain Node: a WeftClient from the package talks to a weft Worker", async () => {
  writeFileSync(
    path.join(app, "talk.mjs"),
    `import { WeftClient } from "weft/client";
import { useThread } from "weft/react";
const weft = new WeftClient({ url: process.argv[2] });
const { threadId } = await weft.createThread({});
const types = [];
const finished = new Promise((resolve, reject) => {
  const sub = weft.subscribe(threadId, {
    onEvent: (frame) => { types.push(frame.type); if (frame.type === "turn_finished") { sub.close(); resolve(); } },
    onError: reject,
  });
});
await weft.postMessage(threadId, { content: "hello", script: [{ text: "hello from the package" }] });
await finished;
const { messages } = await weft.getMessages(threadId);
let root = null;
try { await import("weft"); } catch (e) { root = e.code; }
console.log(JSON.stringify({ hook: typeof useThread, types, texts: messages.map((m) => m.content), root }));
`,
  );
  const { stdout } = await run(process.execPath, ["talk.mjs", weft.url], { cwd: app, timeout: 60_000 });
  const out = JSON.parse(stdout);
  expect(out.hook).toBe("function");
  expect(out.types).toEqual(expect.arrayContaining(["turn_started", "turn_finished"]));
  expect(out.texts).toEqual(expect.arrayContaining(["hello", "hello from the package"]));
  // The server's entry is not in the package.
  expect(out.root).toBe("ERR_PACKAGE_PATH_NOT_EXPORTED");
});
