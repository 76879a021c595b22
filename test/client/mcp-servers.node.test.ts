/**
 * The typed client's MCP server methods send what the routes take: `addMcpServer` posts the
 * name and options to `/mcp-servers`, `removeMcpServer` encodes the name, `listMcpServers` and
 * `listTools` read theirs; a refusal is thrown with weft's code and the field's path.
 */
import { expect, it } from "vitest";
import { WeftClient, WeftClientError } from "weft/client";

it("adds, lists and removes servers at the routes, and throws a refusal with its code and path", async () => {
  const sent: Array<{ method: string; url: string; body: unknown }> = [];
  const weft = new WeftClient({
    url: "http://weft.test",
    token: "k-1",
    fetch: (async (input: RequestInfo | URL, init?: RequestInit) => {
      const body = init?.body ? JSON.parse(String(init.body)) : undefined;
      sent.push({ method: init?.method ?? "GET", url: String(input), body });
      if (body?.url === "http://plain.example/mcp") return Response.json({ error: { code: "invalid_request", message: "url: must be https://", details: { path: ["url"] } } }, { status: 400 });
      if (String(input).endsWith("/mcp-servers") && init?.method === "POST") return Response.json({ name: body.name, definition: { ...body, kind: "mcp" }, createdAt: 1 });
      if (init?.method === "DELETE") return Response.json({ deleted: true });
      return Response.json({ servers: [] });
    }) as typeof fetch,
  });
  expect(await weft.addMcpServer("tracker", { url: "https://tracker.example/mcp", tools: ["search"], auth: { type: "bearer", env: "TRACKER_TOKEN" } })).toMatchObject({ name: "tracker", definition: { kind: "mcp" } });
  expect(await weft.listMcpServers()).toEqual({ servers: [] });
  expect(await weft.removeMcpServer("tracker")).toEqual({ deleted: true });
  const refused = await weft.addMcpServer("plain", { url: "http://plain.example/mcp" }).catch((e: unknown) => e);
  expect(refused).toBeInstanceOf(WeftClientError);
  expect(refused).toMatchObject({ code: "invalid_request", status: 400, details: { path: ["url"] } });
  expect(sent.map((s) => [s.method, new URL(s.url).pathname, s.body])).toEqual([
    ["POST", "/mcp-servers", { name: "tracker", url: "https://tracker.example/mcp", tools: ["search"], auth: { type: "bearer", env: "TRACKER_TOKEN" } }],
    ["GET", "/mcp-servers", undefined],
    ["DELETE", "/mcp-servers/tracker", undefined],
    ["POST", "/mcp-servers", { name: "plain", url: "http://plain.example/mcp" }],
  ]);
});
