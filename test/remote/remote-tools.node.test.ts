/**
 * How a remote tool's listing becomes a weft tool: the name the model sees, the effect (the
 * author's override, then the server's hints, else write), and how an answer becomes a result.
 */
import { describe, expect, it } from "vitest";
import { defineMcpServer } from "../../src/remote/define.js";
import { RemoteConnection } from "../../src/remote/connection.js";
import type { RemoteToolInfo } from "../../src/remote/kept-tool.js";
import { EFFECT_ANNOTATIONS } from "../../src/mcp/server.js";
import { remoteEffect, remoteToolDefinition, remoteToolName, toolResultOf } from "../../src/remote/remote-tools.js";

const server = defineMcpServer({ url: "https://mcp.example.com/mcp", effects: { risky_read: "write", upsert: "idempotent" } });
const tool = (name: string, annotations?: Record<string, boolean>) => ({ name, inputSchema: { type: "object" }, ...(annotations ? { annotations } : {}) });

describe("a remote tool's effect", () => {
  it("takes readOnlyHint as read, idempotentHint with an explicit destructiveHint as idempotent, and anything else as write", () => {
    expect(remoteEffect(server, tool("search", { readOnlyHint: true }))).toBe("read");
    expect(remoteEffect(server, tool("put", { idempotentHint: true, destructiveHint: false }))).toBe("idempotent");
    expect(remoteEffect(server, tool("wipe", { idempotentHint: true, destructiveHint: true }))).toBe("idempotent");
    expect(remoteEffect(server, tool("send"))).toBe("write");
    expect(remoteEffect(server, tool("send", { readOnlyHint: false, destructiveHint: false }))).toBe("write");
    expect(remoteEffect(server, tool("send", { destructiveHint: true }))).toBe("write");
  });

  it("does not take a bare idempotentHint (no destructiveHint said) as idempotent: the call is a write, run once", () => {
    expect(remoteEffect(server, tool("put", { idempotentHint: true }))).toBe("write");
    expect(remoteEffect(server, tool("put", { readOnlyHint: false, idempotentHint: true }))).toBe("write");
  });

  it("reads weft's own MCP annotations back as the effect each was made from", () => {
    for (const effect of ["read", "idempotent", "write"] as const) {
      expect(remoteEffect(server, { name: "t", inputSchema: { type: "object" }, annotations: EFFECT_ANNOTATIONS[effect] } as RemoteToolInfo)).toBe(effect);
    }
  });

  it("lets the author's override win over the hints", () => {
    expect(remoteEffect(server, tool("risky_read", { readOnlyHint: true }))).toBe("write");
    expect(remoteEffect(server, tool("upsert"))).toBe("idempotent");
  });
});

describe("a remote tool's description", () => {
  const describedAs = (description?: string) => remoteToolDefinition("docs", server, { ...tool("search"), ...(description !== undefined ? { description } : {}) }, new RemoteConnection("docs", server)).description;

  it("is the server's as it gave it (spaces included), or says whose tool it is when the server gave none", () => {
    expect(describedAs("Search the docs. ")).toBe("Search the docs. ");
    expect(describedAs("  ")).toBe("search (a tool of MCP server docs)");
    expect(describedAs()).toBe("search (a tool of MCP server docs)");
  });
});

describe("a remote tool's name", () => {
  it("is <server>__<tool>, lower-cased, with characters providers refuse made _", () => {
    expect(remoteToolName("github", "create_issue")).toBe("github__create_issue");
    expect(remoteToolName("linear", "Issues.Search-v2")).toBe("linear__issues_search_v2");
    expect(remoteToolName("docs", "x".repeat(80))).toBeNull();
  });
});

describe("an answer as a result", () => {
  it("joins text, keeps images as attachments, and makes isError an error with the server's text", () => {
    expect(toolResultOf({ content: [{ type: "text", text: "a" }, { type: "text", text: "b" }] })).toEqual({ status: "success", result: "a\nb" });
    expect(toolResultOf({ content: [], structuredContent: { n: 1 } })).toEqual({ status: "success", result: '{"n":1}' });
    expect(toolResultOf({ content: [{ type: "image", data: "AAAA", mimeType: "image/png" }] })).toEqual({
      status: "success",
      result: "",
      attachments: [{ name: "image-1.png", mimeType: "image/png", data: "AAAA" }],
    });
    expect(toolResultOf({ isError: true, content: [{ type: "text", text: "closed today" }] })).toEqual({ status: "error", error: "closed today" });
    expect(toolResultOf({ isError: true, content: [] }).status).toBe("error");
  });

  it("for a tool with an outputSchema, is the structured content (attachments kept), else the text to be checked; an error stays the server's text", () => {
    const image = { type: "image" as const, data: "AAAA", mimeType: "image/png" };
    expect(toolResultOf({ content: [{ type: "text", text: "two items" }, image], structuredContent: { n: 2 } }, true)).toEqual({
      status: "success",
      result: '{"n":2}',
      attachments: [{ name: "image-2.png", mimeType: "image/png", data: "AAAA" }],
    });
    // Without the outputSchema the text wins, as before.
    expect(toolResultOf({ content: [{ type: "text", text: "two items" }], structuredContent: { n: 2 } })).toEqual({ status: "success", result: "two items" });
    expect(toolResultOf({ content: [{ type: "text", text: '{"n":2}' }] }, true)).toEqual({ status: "success", result: '{"n":2}' });
    expect(toolResultOf({ isError: true, content: [{ type: "text", text: "not ready" }], structuredContent: { n: "none" } }, true)).toEqual({ status: "error", error: "not ready" });
  });
});

describe("a remote tool's outputSchema", () => {
  it("is the definition's when the server declared one, so the pipeline checks results against it", () => {
    const outputSchema = { type: "object", properties: { n: { type: "integer" } } };
    const made = (info: RemoteToolInfo) => remoteToolDefinition("docs", server, info, new RemoteConnection("docs", server));
    expect(made({ ...tool("count"), outputSchema }).outputSchema).toEqual(outputSchema);
    expect("outputSchema" in made(tool("count"))).toBe(false);
  });
});
