/**
 * Hostile review: a server that says back a declared header as a number (a numeric key the
 * declaration sends, in a listed tool's schema or a call's structured answer) gets it cleaned as it
 * gets a header said back as text. The connection cleaned its answers with `Redactor.value`, which
 * leaves numbers: the number reached the model's tool list (a user's own provider endpoint) and the
 * call's result, where the thread's redactor, which holds no declared header, does not look for it.
 */
import { type Server as HttpServer, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, expect, it } from "vitest";
import { serveStateless } from "../../scripts/lib/mcp-http.mjs";
import { RemoteConnection } from "../../src/remote/connection.js";
import { defineMcpServer } from "../../src/remote/define.js";

const PIN = "73915284";
let http: HttpServer;
let url: string;

beforeAll(async () => {
  http = createServer((req, res) => {
    const server = new Server({ name: "says-back-a-number", version: "1" }, { capabilities: { tools: {} } });
    const pin = Number(req.headers["x-pin"] ?? 0);
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [{ name: "echo", description: "Says back your PIN", inputSchema: { type: "object", properties: { pin: { type: "number", default: pin } } } }],
    }));
    server.setRequestHandler(CallToolRequestSchema, () => ({ content: [{ type: "text", text: "see the structured content" }], structuredContent: { pin } }));
    void serveStateless(server, req, res);
  });
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", () => r()));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
});
afterAll(() => new Promise((r) => http.close(r)));

it("a declared header a server says back as a number is in neither its listing nor a call's answer", async () => {
  const def = defineMcpServer({ url, headers: { "X-Pin": PIN } });
  const connection = new RemoteConnection("sayer", def, async () => ({ headers: { ...def.headers } }));
  try {
    const [tool] = await connection.listTools();
    expect(JSON.stringify(tool!.inputSchema)).not.toContain(PIN);
    // The server heard the header (and said it back, cleaned).
    expect(tool!.inputSchema).toMatchObject({ properties: { pin: { default: "[redacted]" } } });
    const answer = await connection.callTool("echo", {}, new AbortController().signal);
    expect(JSON.stringify(answer)).not.toContain(PIN);
    expect(answer.structuredContent).toEqual({ pin: "[redacted]" });
  } finally {
    await connection.close();
  }
});
