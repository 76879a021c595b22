/**
 * `weft tools | head -1`: the reader goes away while the command still writes. A command line
 * then stops quietly, as `cat` and `ls` do, instead of dying on an unhandled `EPIPE` with a
 * stack trace on stderr.
 */
import { spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const tool = (i: number) => ({ name: `tool_${i}`, description: "x".repeat(200), inputSchema: { type: "object", properties: { a: { type: "string", description: "y".repeat(200) } } }, outputSchema: null, effect: "read", endsTurn: false, needsApproval: false });
let server: Server;
let url: string;

beforeAll(async () => {
  // A weft that lists enough tools that the command is still writing when its reader leaves.
  const body = JSON.stringify({ tools: Array.from({ length: 5000 }, (_, i) => tool(i)), configHash: "h", remote: { tools: [], problems: [] } });
  server = createServer((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end(body));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe("weft with a reader that leaves", () => {
  it("ends without an EPIPE stack trace when stdout's reader closes early", async () => {
    const child = spawn(process.execPath, ["bin/weft.mjs", "tools", "--url", url], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, WEFT_TOKEN: "" } });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.stdout.once("data", () => child.stdout.destroy()); // head -1: read once, then close
    const code = await new Promise<number | null>((r) => child.on("close", (c) => r(c)));
    expect(stderr).not.toContain("EPIPE");
    expect(code).toBe(0);
  }, 30_000);
});
