/**
 * An MCP direct call (`POST /mcp`'s `tools/call`) of a tool it cannot reach: the `unknown_tool`
 * answer names, as available, only tools a `tools/call` reaches (those `tools/list` offers; in a
 * session, those its agent offers), not the agent's remote MCP tools, which `tools/call` refuses,
 * nor a client tool only a model can call.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { createThread, request } from "../helpers.js";

async function client(): Promise<Client> {
  const c = new Client({ name: "weft-test", version: "1.0.0" });
  await c.connect(new StreamableHTTPClientTransport(new URL("http://weft.test/mcp"), { fetch: (url, init) => request(new URL(url).pathname, init) }));
  return c;
}

describe("an MCP direct call of a tool its session's agent does not offer", () => {
  it("lists as available only the agent's tools a direct call reaches, none of its remote MCP tools", async () => {
    const sessionId = await createThread({ agent: "remote_mcp" });
    const c = await client();
    const err = await c.callTool({ name: "sum_range", arguments: {}, _meta: { "weft/sessionId": sessionId } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpError);
    expect((err as McpError).code).toBe(ErrorCode.InvalidParams);
    const message = (err as McpError).message;
    expect(message).toMatch(/unknown tool "sum_range"; available tools: clash__lookup(;|$)/);
    // remote__lookup is one of the agent's remote tools: tools/call answers it unknown_tool.
    expect(message).not.toMatch(/remote__lookup/);
    const remote = await c.callTool({ name: "remote__lookup", arguments: { id: "1" }, _meta: { "weft/sessionId": sessionId } }).catch((e: unknown) => e);
    expect((remote as McpError).message).toMatch(/unknown tool "remote__lookup"/);
    await c.close();
  });

  it("without a session lists the tools tools/list offers, not a client tool only a model can call", async () => {
    const c = await client();
    const err = await c.callTool({ name: "no_such_tool", arguments: {} }).catch((e: unknown) => e);
    await c.close();
    const message = (err as McpError).message;
    expect(message).toMatch(/available tools: .*sum_range/);
    // pick_file runs in the client (executionMode "client"): tools/call answers it tool_not_callable.
    expect(message).not.toMatch(/pick_file/);
  });
});
