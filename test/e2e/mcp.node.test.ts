/**
 * The MCP server at `POST /mcp`, driven by the official MCP SDK client over Streamable HTTP
 * against a real `wrangler dev` (development mode, so no token).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, createThread, sharedWeft, type DevServer } from "./support.js";

let weft: DevServer;
let client: Client;

beforeAll(async () => {
  weft = await sharedWeft("dev");
  client = new Client({ name: "weft-e2e", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${weft.url}/mcp`)));
});
afterAll(async () => {
  await client?.close();
  await weft?.stop();
});

const textOf = (r: any) => (r.content as Array<{ type: string; text: string }>).map((c) => c.text).join("");

describe("MCP tools/list", () => {
  it("advertises every tool of GET /v1/tools an MCP client can call, with its schemas and effect annotations", async () => {
    const { tools } = await client.listTools();
    const all = (await call(weft.url, "GET", "/v1/tools")).body.tools as any[];
    // A client tool waits for a chat's answer and a provider's runs inside a model step: neither is callable over MCP.
    const listed = all.filter((t) => t.executionMode === undefined);
    expect(all.filter((t) => t.executionMode !== undefined).map((t) => t.name).sort()).toEqual(["claude_search", "pick_file", "web_search"]);
    expect(tools.map((t) => t.name)).toEqual(listed.map((t) => t.name));
    for (const t of listed) {
      const m = tools.find((x) => x.name === t.name)!;
      // MCP keeps the schema as authored, its `$schema` too; GET /v1/tools leaves out the default draft's.
      const { $schema: _draft, ...authored } = m.inputSchema as Record<string, unknown>;
      expect(authored).toEqual(t.inputSchema);
      expect(m.description).toBe(t.description);
      expect(m._meta?.["weft/effect"]).toBe(t.effect);
    }
    const byName = (n: string) => tools.find((t) => t.name === n)!;
    expect(byName("sum_range").annotations).toEqual({ readOnlyHint: true });
    expect(byName("effect_idempotent").annotations).toMatchObject({ readOnlyHint: false, idempotentHint: true });
    expect(byName("save_draft").annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: false });
    expect(byName("typed_output").outputSchema).toMatchObject({ type: "object", properties: { id: { type: "string" }, total: { type: "number" } } });
    expect(byName("sum_range").outputSchema).toBeUndefined();
  });
});

describe("MCP tools/call", () => {
  it("runs a tool through the dispatch pipeline (defaults applied) and answers its result as text", async () => {
    const r = await client.callTool({ name: "sum_range", arguments: { from: 18, to: 20 } });
    expect(r.isError).toBeFalsy();
    expect(JSON.parse(textOf(r))).toEqual({ numbers: [18, 19, 20], total: 57 });
    expect(r.structuredContent).toBeUndefined();
    const defaults = await client.callTool({ name: "sum_range", arguments: {} });
    expect(JSON.parse(textOf(defaults))).toEqual({ numbers: [1, 2, 3], total: 6 });
  });

  it("returns structuredContent, checked by the client against the output schema, when the tool has one", async () => {
    const r = await client.callTool({ name: "typed_output", arguments: { broken: false } });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toEqual({ id: "inv_1", total: 12.5 });
    // An output that breaks its schema is an error result (the pipeline's output check), never structured content.
    const broken = await client.callTool({ name: "typed_output", arguments: { broken: true } });
    expect(broken.isError).toBe(true);
    expect(broken.structuredContent).toBeUndefined();
    expect(textOf(broken)).toMatch(/invalid_tool_output|output/);
  });

  it("answers a validation failure as an isError result naming the path", async () => {
    const r = await client.callTool({ name: "sum_range", arguments: { to: "twenty" } });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/^invalid_tool_input: to: /);
    expect(r._meta?.["weft/errorCode"]).toBe("invalid_tool_input");
  });

  it("answers an unknown tool with a protocol error (invalid params)", async () => {
    const err = await client.callTool({ name: "sum_rang", arguments: {} }).catch((e) => e);
    expect(err).toBeInstanceOf(McpError);
    expect(err.code).toBe(ErrorCode.InvalidParams);
    expect(err.message).toContain("sum_range");
    // The prefix once: the client adds "MCP error <code>: " to the message the server sent.
    expect(err.message).toMatch(/^MCP error -32602: unknown tool "sum_rang"/);
  });

  it("answers arguments that are not an object with invalid params naming the path", async () => {
    const err = await client.callTool({ name: "sum_range", arguments: "abc" as never }).catch((e) => e);
    expect(err).toBeInstanceOf(McpError);
    expect(err.code).toBe(ErrorCode.InvalidParams);
    expect(err.message).toBe("MCP error -32602: params.arguments: expected an object, received string");
  });

  it("answers JSON that is not JSON-RPC, and an empty batch, as an invalid request (-32600)", async () => {
    for (const body of [{ foo: 1 }, []]) {
      const res = await fetch(`${weft.url}/mcp`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: JSON.stringify(body) });
      expect(res.status).toBe(400);
      expect(((await res.json()) as any).error).toMatchObject({ code: "invalid_request", details: { jsonRpcCode: -32600 } });
    }
  });

  it("runs in a weft session named in _meta, where the call is recorded like any direct call", async () => {
    const sessionId = await createThread(weft.url);
    const saved = await client.callTool({ name: "save_draft", arguments: { title: "t", body: "from mcp" }, _meta: { "weft/sessionId": sessionId } });
    expect(saved.isError).toBeFalsy();
    const listed = await client.callTool({ name: "list_drafts", arguments: {}, _meta: { "weft/sessionId": sessionId } });
    expect(textOf(listed)).toContain("from mcp");
    const calls = (await call(weft.url, "GET", `/threads/${sessionId}/calls`)).body.calls as any[];
    expect(calls.map((c) => [c.toolName, c.status, c.source])).toEqual([
      ["save_draft", "succeeded", "direct"],
      ["list_drafts", "succeeded", "direct"],
    ]);
    const missing = await client.callTool({ name: "list_drafts", arguments: {}, _meta: { "weft/sessionId": "0".repeat(64) } });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toMatch(/^session_not_found/);
  });

  it("reports a call waiting for approval, which a person then approves through weft", async () => {
    const r = await client.callTool({ name: "needs_ok", arguments: { amount: 500 } });
    expect(r.isError).toBe(true);
    expect(r._meta).toMatchObject({ "weft/status": "awaiting_approval" });
    const sessionId = r._meta!["weft/sessionId"] as string;
    const callId = r._meta!["weft/callId"] as string;
    expect(textOf(r)).toContain(callId);
    const approved = await call(weft.url, "POST", `/threads/${sessionId}/calls/${callId}/approve`, {});
    expect(approved.status).toBe(200);
    const record = (await call(weft.url, "GET", `/threads/${sessionId}/calls/${callId}`)).body;
    expect(record).toMatchObject({ status: "succeeded", approvedBy: "dev" });
  });

  it("refuses GET and DELETE: the server is stateless", async () => {
    for (const method of ["GET", "DELETE"]) {
      const res = await fetch(`${weft.url}/mcp`, { method, headers: { accept: "text/event-stream" } });
      expect(res.status).toBe(405);
      expect(res.headers.get("allow")).toBe("POST");
      expect(((await res.json()) as any).error.code).toBe("method_not_allowed");
    }
  });
});
