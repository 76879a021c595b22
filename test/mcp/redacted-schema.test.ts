/**
 * Review 25c: /mcp answered a call whose redacted result is still JSON of an object with that
 * object as structuredContent, checked against nothing. When redacting a caller's secret changed
 * the object's shape (here a key: {"[redacted]":12.5}), the structuredContent no longer matches the
 * tool's outputSchema, and the MCP SDK's client refuses the result: a write that ran is seen as a
 * failed request (the class db5c46c fixed for broken JSON).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it } from "vitest";
import { json, request } from "../helpers.js";

describe("review 25c: /mcp structuredContent after redaction", () => {
  it("the MCP SDK's client takes the answer of a write whose redacted result no longer fits its outputSchema", async () => {
    // typed_output answers {"id":"inv_1","total":12.5}; this secret of the caller's spans a key and a value.
    expect((await json("PUT", "/account/env/REVIEW25C_REF", { value: 'id":"inv_1","total' }, "alice")).status).toBe(200);
    const raw = await request("/mcp", { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "typed_output", arguments: { broken: false }, _meta: { "weft/effectKey": "rv25c-structured-1" } } }) }, "alice");
    const answered = ((await raw.json()) as any).result;
    const client = new Client({ name: "weft-test", version: "1.0.0" });
    const fetchAs = (url: string | URL, init?: RequestInit) => request(new URL(url).pathname, init, "alice");
    await client.connect(new StreamableHTTPClientTransport(new URL("http://weft.test/mcp"), { fetch: fetchAs }));
    await client.listTools();
    const outcome = await client.callTool({ name: "typed_output", arguments: { broken: false } }).then(
      (r) => ({ took: true, answered: r.isError === true || r.structuredContent !== undefined }),
      (e: unknown) => ({ took: false, error: String(e), structuredContent: answered?.structuredContent }),
    );
    await client.close();
    expect(outcome).toEqual({ took: true, answered: true });
  });
});
