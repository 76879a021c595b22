/**
 * The MCP client's fetch against real HTTP servers in Node (whose fetch follows redirects unless
 * told not to): headers never leave the declared origin, and answers over the cap fail, as do
 * answers still streaming past their deadline; either way the server's stream is closed.
 */
import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_SESSION_STREAM_BYTES, guardedFetch } from "../../src/remote/fetch.js";

let declared: Server;
let other: Server;
const seenByOther: Array<Record<string, unknown>> = [];
/** Endless answers of the declared server still open (`/trickle`, `/flood`), and bytes written to them. */
const endless = { open: 0, bytes: 0 };
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
    } else if (req.url === "/trickle" || req.url === "/flood") {
      // An event stream without end: keep-alives 20 ms apart, or 64 KiB comments as fast as they are read.
      res.writeHead(200, { "content-type": "text/event-stream" });
      endless.open += 1;
      const flood = req.url === "/flood";
      const piece = flood ? `: ${"x".repeat(64 * 1024)}\n\n` : ": keep-alive\n\n";
      let live = true;
      const next = () => {
        if (!live) return;
        endless.bytes += piece.length;
        if (res.write(piece)) setTimeout(next, flood ? 0 : 20);
        else res.once("drain", next);
      };
      res.on("close", () => {
        live = false;
        endless.open -= 1;
      });
      next();
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

  it("fails an answer still streaming past its deadline with mcp_unreachable, and closes it", async () => {
    const fetchGuarded = guardedFetch(new URL(`${base(declared)}/mcp`), 16 * 1024, false, 300);
    const started = Date.now();
    const response = await fetchGuarded(`${base(declared)}/trickle`, { method: "POST", body: "{}" });
    const read = response.text();
    // Bounded wait: an answer read without end fails here instead of hanging the test.
    const outcome = await Promise.race([read.then(() => "ended", (e: unknown) => e), new Promise((r) => setTimeout(() => r("still open after 10 s"), 10_000))]);
    expect(outcome).toMatchObject({ code: "mcp_unreachable", message: expect.stringContaining("kept its answer open past") });
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    await until(() => endless.open === 0, "the server saw its stream closed");
  });

  it("fails the HTTP+SSE session stream past its own cap, and closes it", async () => {
    const fetchGuarded = guardedFetch(new URL(`${base(declared)}/mcp`), 16 * 1024, true);
    const response = await fetchGuarded(`${base(declared)}/flood`, { method: "GET" });
    const reader = response.body!.getReader();
    let seen = 0;
    let failure: unknown = null;
    // Read no further than twice the cap: past it, the cap did not hold.
    while (seen <= 2 * MAX_SESSION_STREAM_BYTES) {
      const chunk = await reader.read().catch((e: unknown) => ((failure = e), null));
      if (!chunk || chunk.done) break;
      seen += chunk.value.byteLength;
    }
    expect(failure).toMatchObject({ code: "mcp_protocol_error" });
    expect(seen).toBeLessThanOrEqual(MAX_SESSION_STREAM_BYTES);
    await until(() => endless.open === 0, "the server saw its stream closed");
  });

  it("answers the optional GET event stream 405 itself, keeping no stream open", async () => {
    const response = await guardedFetch(new URL(`${base(declared)}/mcp`))(`${base(declared)}/mcp`, { method: "GET" });
    expect(response.status).toBe(405);
  });
});

/** Waits until `check` holds, looking every 10 ms for up to 10 s. */
async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 1000 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!check()) throw new Error(`timed out waiting: ${what}`);
}
