/**
 * What a test Worker of `npm run test:agents` fetches goes out through Node (scripts/lib/outbound.mjs):
 * miniflare hands over its own undici Request, which Node's fetch read as a URL and refused, so
 * every remote MCP server of agents/mcp/ answered `mcp_unreachable ... HTTP 500` in a test.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Request as MiniflareRequest } from "undici";
import { afterAll, beforeAll, expect, it } from "vitest";
import { forwardOutbound } from "../../scripts/lib/outbound.mjs";

let base = "";
const server = createServer((req, res) => {
  if (req.url === "/moved") return void res.writeHead(302, { location: "/elsewhere" }).end();
  let body = "";
  req.on("data", (c) => (body += c));
  req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ method: req.method, url: req.url, auth: req.headers.authorization ?? null, body })));
});
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

it("forwards miniflare's Request with its method, headers and body", async () => {
  const request = new MiniflareRequest(`${base}/mcp?x=1`, { method: "POST", headers: { authorization: "Bearer t0k", "content-type": "application/json" }, body: '{"jsonrpc":"2.0"}' });
  const res = await forwardOutbound(request as unknown as Request);
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({ method: "POST", url: "/mcp?x=1", auth: "Bearer t0k", body: '{"jsonrpc":"2.0"}' });
});

it("keeps the request's redirect mode (weft follows no redirect of an MCP server)", async () => {
  const res = await forwardOutbound(new MiniflareRequest(`${base}/moved`, { redirect: "manual" }) as unknown as Request);
  expect(res.status).toBe(302);
});
