/**
 * A fresh project, made the README's way (a copy of the project as a clone has it: no
 * node_modules of its own but the installed ones, no generated registry, no local env files),
 * runs `npx weft eval` on its example suite: the command starts the project's own `wrangler dev`,
 * plays every case on a dry-run thread and passes.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { delimiter, join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { copyProject } from "./support.js";

let fresh: string | undefined;
afterAll(() => {
  if (fresh) rmSync(fresh, { recursive: true, force: true, maxRetries: 3 });
});

// The PATH a shell has outside npm scripts: without this project's node_modules/.bin.
const PATH = (process.env.PATH ?? "").split(delimiter).filter((p) => !p.includes("node_modules")).join(delimiter);
// Nothing listens here, so the command starts the copy's own runtime even when a weft (npm start,
// another run's server) answers at localhost:8787, where it looks first.
const NO_LOCAL = "http://127.0.0.1:9";

it("npx weft eval evals/example in a fresh copy of the project passes every case and writes the HTML report", async () => {
  fresh = copyProject();
  const dir = fresh;
  const run = await new Promise<{ code: number | null; out: string; err: string }>((resolve, reject) => {
    const child = spawn("bash", ["-c", "npx weft eval evals/example --html report.html"], { cwd: dir, env: { ...process.env, PATH, WEFT_URL: "", WEFT_TOKEN: "", WEFT_LOCAL_URL: NO_LOCAL }, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, out, err }));
  });
  expect(run.out, run.err.slice(-3000)).toContain("eval: 6 cases, candidate scripted: 6/6 exact tool calls\n");
  expect(run.out).toMatch(/^scripted +scripted +6\/6 +100\.0% +6\/6 /m);
  expect(run.err).toContain(`weft: starting a local runtime (wrangler dev) for ${dir}`);
  expect(run.code).toBe(0);
  expect(existsSync(join(dir, "report.html"))).toBe(true);
  expect(readFileSync(join(dir, "report.html"), "utf8")).toContain('<table id="summary">');
}, 600_000);
