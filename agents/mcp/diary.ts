import { defineMcpServer } from "@standardagents/spec";

/**
 * The example's remote MCP server behind OAuth, scripts/example-oauth-mcp-server.mjs, which
 * `npm start` runs beside weft: each user authorizes weft there once (the first call parks with
 * the address to open), then `write_entry` (a write, sent once) and `read_entries` (read-only)
 * work in any of their threads.
 */
export default defineMcpServer({ url: "http://127.0.0.1:8789/mcp", auth: { type: "oauth" }, tools: ["write_entry", "read_entries"] });
