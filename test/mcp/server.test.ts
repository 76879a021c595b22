/**
 * `POST /mcp` behind authentication and ownership, driven by the official MCP SDK client inside
 * workerd (its `fetch` is the test worker's, with each user's API key).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { EFFECT_ANNOTATIONS } from "../../src/mcp/server.js";
import { type TestUser, createThread, json, request } from "../helpers.js";

async function clientAs(user: TestUser): Promise<Client> {
  const client = new Client({ name: "weft-test", version: "1.0.0" });
  const fetchAs = (url: string | URL, init?: RequestInit) => request(new URL(url).pathname, init, user);
  await client.connect(new StreamableHTTPClientTransport(new URL("http://weft.test/mcp"), { fetch: fetchAs }));
  return client;
}

const rpc = (body: unknown, as: TestUser | null) =>
  request("/mcp", { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: JSON.stringify(body) }, as);

describe("POST /mcp", () => {
  it("needs a verified caller like every route", async () => {
    const res = await rpc({ jsonrpc: "2.0", id: 1, method: "tools/list" }, null);
    expect(res.status).toBe(401);
    expect(((await res.json()) as any).error.code).toBe("unauthenticated");
  });

  it("refuses at the HTTP level with weft's error body: bad JSON, a missing Accept, a GET", async () => {
    const malformed = await request("/mcp", { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: "{" });
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as any).error).toMatchObject({ code: "invalid_json", details: { jsonRpcCode: -32700 } });
    const noAccept = await request("/mcp", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }) });
    expect(noAccept.status).toBe(406);
    expect(((await noAccept.json()) as any).error.code).toBe("not_acceptable");
    const get = await request("/mcp", { headers: { accept: "text/event-stream" } });
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
    expect(((await get.json()) as any).error.code).toBe("method_not_allowed");
  });

  it("answers JSON that is not a JSON-RPC request, or an empty batch, as an invalid request naming the path", async () => {
    for (const [body, message] of [
      [{ foo: 1 }, 'jsonrpc: expected "2.0" (a JSON-RPC 2.0 message)'],
      [[], "body: an empty batch is not a JSON-RPC request"],
      [[{ jsonrpc: "2.0", id: 1, method: "tools/list" }, 7], "[1]: expected a JSON-RPC message (an object)"],
      [{ jsonrpc: "2.0", id: 1 }, "method: expected a string (a JSON-RPC request or notification)"],
    ] as const) {
      const res = await rpc(body, "tester");
      expect(res.status).toBe(400);
      expect(((await res.json()) as any).error).toMatchObject({ code: "invalid_request", message, details: { jsonRpcCode: -32600 } });
    }
  });

  it("answers tools/call params of the wrong type as invalid params (-32602) naming the path", async () => {
    const res = await rpc({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "save_draft", arguments: "abc" } }, "tester");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ jsonrpc: "2.0", id: 7, error: { code: -32602, message: "params.arguments: expected an object, received string" } });
    const noName = await rpc({ jsonrpc: "2.0", id: 8, method: "tools/call", params: {} }, "tester");
    expect(((await noName.json()) as any).error).toMatchObject({ code: -32602, message: expect.stringMatching(/^params\.name: /) });
    // Any other unknown method is still "method not found".
    const other = await rpc({ jsonrpc: "2.0", id: 9, method: "tools/frobnicate" }, "tester");
    expect(((await other.json()) as any).error.code).toBe(-32601);
  });

  it("answers an unknown tool with invalid params whose message the client shows once", async () => {
    const client = await clientAs("tester");
    const err = await client.callTool({ name: "sum_rang", arguments: {} }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpError);
    expect((err as McpError).code).toBe(ErrorCode.InvalidParams);
    expect((err as McpError).message).toMatch(/^MCP error -32602: unknown tool "sum_rang"; available tools: .*sum_range/);
    await client.close();
  });

  it("runs calls as the verified caller: another user's session is not found, the owner's works", async () => {
    const sessionId = await createThread(); // owned by "tester"
    const bob = await clientAs("bob");
    const refused = await bob.callTool({ name: "save_draft", arguments: { title: "x", body: "y" }, _meta: { "weft/sessionId": sessionId } });
    expect(refused.isError).toBe(true);
    expect((refused.content as any)[0].text).toMatch(/^session_not_found/);
    const tester = await clientAs("tester");
    const ok = await tester.callTool({ name: "save_draft", arguments: { title: "x", body: "y" }, _meta: { "weft/sessionId": sessionId } });
    expect(ok.isError).toBeFalsy();
    const calls = (await json("GET", `/threads/${sessionId}/calls`)).body.calls as any[];
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ toolName: "save_draft", status: "succeeded" });
    // A session named with the wrong type is refused, not dropped for a scratch thread where the write would vanish.
    const wrongType = await tester.callTool({ name: "save_draft", arguments: { title: "x", body: "y" }, _meta: { "weft/sessionId": 42 } });
    expect(wrongType.isError).toBe(true);
    expect((wrongType.content as any)[0].text).toBe("invalid_request: _meta.weft/sessionId: expected a string (a thread id)");
    expect((await json("GET", `/threads/${sessionId}/calls`)).body.calls).toHaveLength(1);
    await bob.close();
    await tester.close();
  });

  it("annotates each tool from its declared effect", async () => {
    const client = await clientAs("alice");
    const { tools } = await client.listTools();
    const all = (await json("GET", "/v1/tools")).body.tools as Array<{ name: string; effect: keyof typeof EFFECT_ANNOTATIONS; executionMode?: string }>;
    const listed = all.filter((t) => t.executionMode === undefined);
    expect(tools.length).toBe(listed.length);
    for (const t of listed) expect(tools.find((m) => m.name === t.name)!.annotations).toEqual(EFFECT_ANNOTATIONS[t.effect]);
    // Every declared effect class appears among the fixtures, so each row of the table is exercised.
    expect(new Set(listed.map((t) => t.effect))).toEqual(new Set(["read", "write", "idempotent", "reconcilable", "predicate"]));
    await client.close();
  });

  it("lists no tool an MCP client could not call: client tools and provider-executed ones", async () => {
    const client = await clientAs("alice");
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain("record_call");
    for (const name of ["pick_file", "web_search", "claude_search"]) expect(names).not.toContain(name);
    // Called anyway (by name), the call is refused with why, as POST /v1/tools/:name refuses it.
    const called = await client.callTool({ name: "pick_file", arguments: { prompt: "x" } });
    expect(called).toMatchObject({ isError: true, _meta: { "weft/errorCode": "tool_not_callable" } });
    await client.close();
  });
});

describe("POST /mcp and DNS rebinding", () => {
  it("answers 403 origin_not_allowed to a browser page of a host it does not serve, even one that looks same-origin", async () => {
    const init = (origin: string) => ({
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", origin },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    for (const origin of ["http://evil.example", "http://weft.test"]) {
      const res = await request("/mcp", init(origin), "alice");
      expect(res.status).toBe(403);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("origin_not_allowed");
    }
  });
});
