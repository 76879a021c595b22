/**
 * The MCP client's fetch against real HTTP servers in Node (whose fetch follows redirects unless
 * told not to): headers never leave the declared origin, and answers over the cap fail.
 */
import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { guardedFetch } from "../../src/remote/fetch.js";

let declared: Server;
let other: Server;
const seenByOther: Array<Record<string, unknown>> = [];
const base = (s: Server) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`;

beforeAll(async () => {
  other = createServer((req, res) => {
    seenByOther.push(req.headers);
    res.end("{}");
  });
  declared = createServer((req, res) => {
    if (req.url === "/moved") {
      res.writeHead(307, { location: `${base(other)}/mcp` });
      res.end();
    } else if (req.url === "/big") {
      res.writeHead(200, { "content-type": "application/json" });
      // No content-length: the cap must count the streamed bytes.
      for (let i = 0; i < 64; i++) res.write("x".repeat(1024));
      res.end();
    } else res.end("{}");
  });
  await Promise.all([declared, other].map((s) => new Promise<void>((r) => s.listen(0, "127.0.0.1", () => r()))));
});
afterAll(async () => {
  await Promise.all([declared, other].map((s) => new Promise((r) => s.close(r))));
});

describe("guardedFetch", () => {
  it("refuses a redirect to another origin, so the other host sees no request and no header", async () => {
    const fetchGuarded = guardedFetch(new URL(`${base(declared)}/mcp`));
    await expect(fetchGuarded(`${base(declared)}/moved`, { method: "POST", headers: { "X-Api-Key": "secret" }, body: "{}" })).rejects.toMatchObject({
      code: "mcp_refused",
      message: expect.stringContaining(`a redirect to ${base(other)}/mcp`),
    });
    expect(seenByOther).toEqual([]);
  });

  it("refuses to send a request to another origin at all", async () => {
    const fetchGuarded = guardedFetch(new URL(`${base(declared)}/mcp`));
    await expect(fetchGuarded(`${base(other)}/mcp`, { method: "POST", headers: { "X-Api-Key": "secret" }, body: "{}" })).rejects.toMatchObject({ code: "mcp_refused" });
    expect(seenByOther).toEqual([]);
  });

  it("fails a body past its cap while it streams", async () => {
    const fetchGuarded = guardedFetch(new URL(`${base(declared)}/mcp`), 16 * 1024);
    const response = await fetchGuarded(`${base(declared)}/big`, { method: "POST", body: "{}" });
    await expect(response.text()).rejects.toMatchObject({ code: "mcp_protocol_error", message: expect.stringContaining("more than 16384 bytes") });
  });

  it("answers the optional GET event stream 405 itself, keeping no stream open", async () => {
    const response = await guardedFetch(new URL(`${base(declared)}/mcp`))(`${base(declared)}/mcp`, { method: "GET" });
    expect(response.status).toBe(405);
  });
});
