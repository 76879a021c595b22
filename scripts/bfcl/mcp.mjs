// @ts-check
/**
 * `--via mcp`: a case's tools are served by a remote MCP server, the MCP SDK's server over
 * Streamable HTTP (stateless) in this process, and weft calls them as the remote tools of
 * `test/fixtures/mcp/bf.ts` (agent `bfcl_mcp`). Each thread gets its own bearer token in its env;
 * the server lists that token's case functions (schemas and descriptions as the harness converted
 * them, nothing changed) and answers each call with the arguments it received, as the local
 * fixture agent does. The model stays weft's scripted one.
 *
 * The SDK's low-level `Server` (what `McpServer` wraps) serves them: `McpServer.registerTool` takes
 * zod schemas only, and BFCL's schemas must reach weft as published JSON Schema.
 * @module
 */
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { serveStateless } from "../lib/mcp-http.mjs";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";

/** The server's name in test/fixtures/mcp/bf.ts: weft offers its tools as `bf__<name>`. */
export const MCP_SERVER = "bf";
/** What weft puts before a remote tool's name. */
export const MCP_PREFIX = `${MCP_SERVER}__`;
/** The host test/fixtures/mcp/bf.ts names; the test worker sends it here (WEFT_TEST_MCP_ROUTES). */
export const MCP_HOST = "bfcl.mcp.test";

/**
 * Starts the server on a free loopback port.
 * @returns {Promise<{ url: string, register(functions: Array<{ name: string, description?: string, parameters: object }>): string, close(): Promise<void> }>}
 *   `register` keeps one thread's functions (named with {@link MCP_PREFIX}) and returns its token
 */
export async function serveBfclMcp() {
  /** @type {Map<string, Array<{ name: string, description: string, inputSchema: any }>>} */
  const byToken = new Map();
  const http = createServer(async (req, res) => {
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
    const tools = token === undefined ? undefined : byToken.get(token);
    if (!tools) return void res.writeHead(401, { "content-type": "application/json" }).end('{"error":"unknown token"}');
    const server = new Server({ name: "bfcl", version: "1.0.0" }, { capabilities: { tools: {} } });
    // Read-only, as the local fixture's tools are (test/fixtures/agents/bfcl.ts): one attempt each.
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: tools.map((t) => ({ ...t, annotations: { readOnlyHint: true } })) }));
    server.setRequestHandler(CallToolRequestSchema, async (request) => {
      if (!tools.some((t) => t.name === request.params.name)) throw new McpError(ErrorCode.InvalidParams, `unknown tool ${request.params.name}`);
      return { content: [{ type: "text", text: JSON.stringify(request.params.arguments ?? {}) }] };
    });
    await serveStateless(server, req, res);
  });
  await new Promise((resolve) => http.listen(0, "127.0.0.1", () => resolve(undefined)));
  const address = http.address();
  if (!address || typeof address === "string") throw new Error("the BFCL MCP server has no port");
  return {
    url: `http://127.0.0.1:${address.port}`,
    register(functions) {
      const token = randomUUID();
      // As the local fixture offers them: the name stands in for an empty description.
      byToken.set(token, functions.map((f) => ({ name: f.name.slice(MCP_PREFIX.length), description: f.description || f.name, inputSchema: f.parameters })));
      return token;
    },
    close: () => new Promise((resolve) => http.close(() => resolve(undefined))),
  };
}
