/**
 * weft as an MCP server answers a client's malformed params as invalid params (-32602), never
 * -32603 (internal error), which its effect-key extension defines as "the outcome is not known
 * yet: ask again with the same key"; and a call that ran is answered with its result even when
 * redacting one of the caller's secrets left the result unfit for its output schema (it broke the
 * result's JSON, until redaction kept JSON JSON). Review 23a found each answered
 * -32603 (the last one for a write that had run, asked again by a keyed client ten times).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it } from "vitest";
import { json, request } from "../helpers.js";

const rpc = async (body: unknown, as: "tester" | "alice" = "tester") => {
  const res = await request("/mcp", { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: JSON.stringify(body) }, as);
  return { status: res.status, body: (await res.json()) as any };
};

describe("/mcp: a client's malformed params", () => {
  it("tools/list with a cursor that is not a string is -32602 naming params.cursor", async () => {
    const res = await rpc({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { cursor: 123 } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ jsonrpc: "2.0", id: 1, error: { code: -32602 } });
    expect(res.body.error.message).toContain("params.cursor");
  });

  it("initialize without protocolVersion is -32602 naming it", async () => {
    const res = await rpc({ jsonrpc: "2.0", id: 2, method: "initialize", params: { capabilities: {}, clientInfo: { name: "x", version: "1" } } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: 2, error: { code: -32602 } });
    expect(res.body.error.message).toContain("params.protocolVersion");
  });

  it("a keyed tools/call asking for a task is -32602, and nothing runs", async () => {
    const res = await rpc({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "save_draft", arguments: { title: "t", body: "b" }, task: { ttl: 1000 }, _meta: { "weft/effectKey": "params-task-1" } } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: 3, error: { code: -32602 } });
    expect(res.body.error.message).toContain("params.task");
  });

  it("in a batch, the batch is refused naming the message", async () => {
    const res = await rpc([
      { jsonrpc: "2.0", id: 4, method: "tools/list" },
      { jsonrpc: "2.0", id: 5, method: "tools/list", params: { cursor: 7 } },
    ]);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: "invalid_request", details: { path: [1], jsonRpcCode: -32602 } });
  });

  it("well-formed requests still go through", async () => {
    const res = await rpc({ jsonrpc: "2.0", id: 6, method: "tools/list", params: {} });
    expect(res.body.result.tools.length).toBeGreaterThan(0);
  });
});

describe("/mcp: a call that ran", () => {
  it("a write with an object outputSchema whose result a redacted secret left unfit for it answers its text, not -32603", async () => {
    // The caller's own account secret, spanning a key and its number; typed_output answers
    // {"id":"inv_1","total":12.5}, redacted {"id":"inv_1","[redacted]":"[redacted]"}: JSON still
    // (src/secrets/json-text.ts), but without the total its schema requires.
    expect((await json("PUT", "/account/env/PARAMS_REF", { value: '"total":12.5' }, "alice")).status).toBe(200);
    const res = await rpc({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "typed_output", arguments: { broken: false }, _meta: { "weft/effectKey": "redacted-structured-1" } } }, "alice");
    expect(res.body.error).toBeUndefined();
    // Without structuredContent MCP allows only an error result; its words and its status say the call ran.
    expect(res.body.result.isError).toBe(true);
    expect(res.body.result.content[0].text).toMatch(/^typed_output ran and succeeded/);
    expect(res.body.result.content[0].text).toContain("[redacted]");
    expect(res.body.result.content[0].text).not.toContain("12.5");
    expect(res.body.result.structuredContent).toBeUndefined();
    expect(res.body.result._meta["weft/status"]).toBe("succeeded");
    expect(res.body.result._meta["weft/structuredContent"]).toMatch(/^withheld/);
  });

  it("the MCP SDK's client takes that answer (it refuses a success without structuredContent from a tool with an output schema)", async () => {
    expect((await json("PUT", "/account/env/PARAMS_REF", { value: '"total":12.5' }, "alice")).status).toBe(200);
    const client = new Client({ name: "weft-test", version: "1.0.0" });
    const fetchAs = (url: string | URL, init?: RequestInit) => request(new URL(url).pathname, init, "alice");
    await client.connect(new StreamableHTTPClientTransport(new URL("http://weft.test/mcp"), { fetch: fetchAs }));
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === "typed_output")?.outputSchema).toBeDefined();
    const result = await client.callTool({ name: "typed_output", arguments: { broken: false } });
    expect(result.isError).toBe(true);
    expect((result.content as { text: string }[])[0]!.text).toMatch(/^typed_output ran and succeeded/);
    await client.close();
  });
});
