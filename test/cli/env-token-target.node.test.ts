/**
 * Where the CLI sends a `WEFT_TOKEN` from the environment (typically a deployed weft's): only to a
 * weft the user named (`--url`, `WEFT_URL`). A weft merely found answering at the local address
 * (`npm start`'s http://localhost:8787, `WEFT_LOCAL_URL`) may be any process on the machine (another
 * user's listener on a free port, an untrusted project's `npm start`), and it gets the token in
 * clear over http. An explicit `--auth` is always sent.
 */
import { spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";

const TOKEN = "prod-token-7f3a9c1e5b";
let server: Server;
let url: string;
/** The Authorization headers the listener was sent. */
const seen: string[] = [];

beforeAll(async () => {
  // Answers as a weft that wants a token would: the probe takes it for one.
  server = createServer((req, res) => {
    if (req.headers.authorization) seen.push(req.headers.authorization);
    if (req.url === "/" && !req.headers.authorization) return res.writeHead(401, { "content-type": "application/json" }).end(JSON.stringify({ error: { code: "unauthenticated", message: "missing bearer token" } }));
    if (req.url?.startsWith("/account/waiting")) return res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ calls: [], nextCursor: null }));
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ threads: [], nextCursor: null }));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));
beforeEach(() => void seen.splice(0));

async function weft(args: string[], env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const base = { ...process.env, WEFT_URL: "", WEFT_TOKEN: "", WEFT_LOCAL_URL: url };
  const child = spawn(process.execPath, ["bin/weft.mjs", ...args], { stdio: ["ignore", "pipe", "pipe"], env: { ...base, ...env } });
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  child.stdout.resume();
  const code = await new Promise<number | null>((r) => child.on("close", (c) => r(c)));
  return { code, stderr };
}

describe("a WEFT_TOKEN from the environment", () => {
  it("is not sent to a weft only found answering at the local address, and the command says why", async () => {
    const { stderr } = await weft(["waiting"], { WEFT_TOKEN: TOKEN });
    expect(seen).toEqual([]);
    expect(stderr).toContain(`WEFT_TOKEN is not sent to the weft found at ${url}`);
  }, 30_000);

  it("is not sent by eval --from-threads to the local address either", async () => {
    await weft(["eval", "--from-threads", "latest:1", "--out", "/tmp/weft-env-token-test"], { WEFT_TOKEN: TOKEN });
    expect(seen).toEqual([]);
  }, 30_000);

  it("is sent to a weft named by --url or WEFT_URL, and an explicit --auth always is", async () => {
    await weft(["waiting", "--url", url], { WEFT_TOKEN: TOKEN });
    await weft(["waiting"], { WEFT_TOKEN: TOKEN, WEFT_URL: url });
    await weft(["waiting", "--auth", TOKEN], {});
    expect(seen).toEqual([`Bearer ${TOKEN}`, `Bearer ${TOKEN}`, `Bearer ${TOKEN}`]);
  }, 30_000);
});
