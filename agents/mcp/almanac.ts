import { defineMcpServer } from "@standardagents/spec";

/**
 * The example's remote MCP server, scripts/example-mcp-server.mjs, which `npm start` runs beside
 * weft: `moon_phase` (it says read-only, so a read) and `sign_guestbook` (no hint: a write, sent once).
 */
export default defineMcpServer({ url: "http://127.0.0.1:8788/mcp", tools: ["moon_phase", "sign_guestbook"] });
