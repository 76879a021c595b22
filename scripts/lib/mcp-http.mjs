// @ts-check
/**
 * Serves one HTTP request with an MCP SDK server over Streamable HTTP, statelessly (no session id,
 * JSON answers): a fresh server per request, closed when the response closes. The local MCP
 * servers of the scripts (the example's almanac, BFCL via MCP) answer this way.
 * @module
 */
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";

/**
 * @param {{ connect(t: StreamableHTTPServerTransport): Promise<void>, close(): Promise<void> }} server an MCP SDK `Server` or `McpServer` made for this request
 * @param {import("node:http").IncomingMessage} req
 * @param {import("node:http").ServerResponse} res
 */
export async function serveStateless(server, req, res) {
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on("close", () => void server.close());
  try {
    await server.connect(transport);
    await transport.handleRequest(req, res);
  } catch (e) {
    if (!res.headersSent) res.writeHead(500).end(String(e));
  }
}
