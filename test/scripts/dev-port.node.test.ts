/**
 * What `npm start` checks before wrangler dev starts: the port is free, and no other start of the
 * project holds its state directory (scripts/lib/dev-port.mjs).
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { portRefusal, takeState } from "../../scripts/lib/dev-port.mjs";
import { argValue } from "../../scripts/lib/dev-vars.mjs";
import { ROOT } from "../sources.node.js";

let dir = "";
let server: Server | undefined;
afterEach(() => {
  server?.close();
  server = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A server on a free loopback port; resolves with the port. */
const listening = () =>
  new Promise<number>((resolve) => {
    server = createServer((s) => s.destroy()).listen(0, "127.0.0.1", () => resolve((server!.address() as { port: number }).port));
  });

describe("npm start's port and state checks", () => {
  it("reads --name value and --name=value", () => {
    expect(argValue(["--ip", "127.0.0.1", "--port=8795"], "port")).toBe("8795");
    expect(argValue(["--port", "8796"], "port")).toBe("8796");
    expect(argValue(["--ip", "localhost"], "port")).toBeUndefined();
  });

  it("refuses a port something answers on, naming how to serve on another, and passes a free one", async () => {
    const port = await listening();
    expect(await portRefusal("127.0.0.1", port)).toBe(`weft: port ${port} is taken (another npm start, or another program): stop it, or serve on another port: npm start -- --port 8795`);
    server!.close();
    await new Promise((r) => server!.once("close", r));
    server = undefined;
    expect(await portRefusal("127.0.0.1", port)).toBeNull();
  });

  it("refuses the state of a running start, takes over one whose process is gone, and releases its own", async () => {
    dir = mkdtempSync(join(tmpdir(), "weft-dev-port-"));
    // Another start: node running a scripts/start.mjs, as npm start runs it.
    mkdirSync(join(dir, "scripts"));
    writeFileSync(join(dir, "scripts/start.mjs"), "setTimeout(() => {}, 30000);\n");
    const other = spawn(process.execPath, [join(dir, "scripts/start.mjs"), "--port", "8787"]);
    try {
      mkdirSync(join(dir, ".wrangler/state"), { recursive: true });
      writeFileSync(join(dir, ".wrangler/state/weft-npm-start.pid"), String(other.pid));
      const held = takeState(dir, []);
      expect(held).toEqual({ refused: `weft: another npm start of this project is running (pid ${other.pid}) on .wrangler/state: two would share its databases; stop it, or give this one its own port and state: npm start -- --port 8795 --persist-to .wrangler/state-2` });
      // Its own state directory is its own.
      const apart = takeState(dir, ["--persist-to", ".wrangler/state-2"]);
      expect("release" in apart && readFileSync(join(dir, ".wrangler/state-2/weft-npm-start.pid"), "utf8")).toBe(String(process.pid));
    } finally {
      other.kill();
      await new Promise((r) => other.once("exit", r));
    }
    const taken = takeState(dir, []);
    expect("release" in taken).toBe(true);
    expect(readFileSync(join(dir, ".wrangler/state/weft-npm-start.pid"), "utf8")).toBe(String(process.pid));
    if ("release" in taken) taken.release();
    expect(existsSync(join(dir, ".wrangler/state/weft-npm-start.pid"))).toBe(false);
  });

  it("takes over a state whose pid a crashed start left and another program now runs", async () => {
    dir = mkdtempSync(join(tmpdir(), "weft-dev-port-"));
    // The pid was a start's; the start crashed (no release) and the system gave the pid to another program.
    const other = spawn(process.execPath, ["-e", "setTimeout(() => {}, 30000)"]);
    try {
      mkdirSync(join(dir, ".wrangler/state"), { recursive: true });
      writeFileSync(join(dir, ".wrangler/state/weft-npm-start.pid"), String(other.pid));
      const taken = takeState(dir, []);
      expect(taken).toEqual({ release: expect.any(Function) });
      expect(readFileSync(join(dir, ".wrangler/state/weft-npm-start.pid"), "utf8")).toBe(String(process.pid));
    } finally {
      other.kill();
      await new Promise((r) => other.once("exit", r));
    }
  });

  it("npm start itself refuses a taken port before starting anything", async () => {
    const port = await listening();
    dir = mkdtempSync(join(tmpdir(), "weft-dev-port-"));
    const run = spawnSync(process.execPath, ["scripts/start.mjs", "--port", String(port), "--persist-to", join(dir, "state")], {
      cwd: ROOT,
      encoding: "utf8",
      timeout: 20_000,
      env: { ...process.env, WEFT_EXAMPLE_SERVERS: "off" },
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(`weft: port ${port} is taken`);
    expect(existsSync(join(dir, "state/weft-npm-start.pid"))).toBe(false);
  });
});
