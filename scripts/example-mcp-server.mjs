#!/usr/bin/env node
// @ts-check
/**
 * The example's remote MCP server (`agents/mcp/almanac.ts`): an MCP SDK `McpServer` over
 * Streamable HTTP (stateless) on http://127.0.0.1:8788/mcp, which `npm start` runs beside weft.
 * Two tools: `moon_phase` (read-only: the moon's phase on a date, computed) and `sign_guestbook`
 * (a write: adds a line to a guestbook kept in memory, numbered).
 *
 * `node scripts/example-mcp-server.mjs` runs it alone; `startExampleMcp()` starts it in a script.
 * @module
 */
import { createServer } from "node:http";
import { fileURLToPath } from "node:url";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { serveStateless } from "./lib/mcp-http.mjs";
import { z } from "zod";

/** The port agents/mcp/almanac.ts names. */
export const EXAMPLE_MCP_PORT = 8788;

/** Days of one lunation, and a new moon to count from (2000-01-06 18:14 UTC). */
const LUNATION_DAYS = 29.530588853;
const NEW_MOON_MS = Date.UTC(2000, 0, 6, 18, 14);
const PHASES = ["new moon", "waxing crescent", "first quarter", "waxing gibbous", "full moon", "waning gibbous", "last quarter", "waning crescent"];

/** The phase on `date` (YYYY-MM-DD, at noon UTC): its name and the lit fraction, in percent. @param {string} date */
export function moonPhase(date) {
  const age = (((Date.parse(`${date}T12:00:00Z`) - NEW_MOON_MS) / 86_400_000) % LUNATION_DAYS + LUNATION_DAYS) % LUNATION_DAYS;
  const phase = PHASES[Math.round((age / LUNATION_DAYS) * 8) % 8];
  const illuminated = Math.round(((1 - Math.cos((2 * Math.PI * age) / LUNATION_DAYS)) / 2) * 100);
  return { date, phase, illuminated, ageDays: Math.round(age * 10) / 10 };
}

/** One MCP server over `guestbook` (one per request: the transport is stateless). @param {string[]} guestbook */
function almanac(guestbook) {
  const server = new McpServer({ name: "almanac", version: "1.0.0" });
  server.registerTool(
    "moon_phase",
    {
      description: "The moon's phase on a date: its name, how much of it is lit (percent) and its age in days",
      inputSchema: { date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/).describe("YYYY-MM-DD") },
      annotations: { readOnlyHint: true },
    },
    async ({ date }) => ({ content: [{ type: "text", text: JSON.stringify(moonPhase(date)) }] }),
  );
  server.registerTool(
    "sign_guestbook",
    {
      description: "Sign the almanac's guestbook with a name and a short message; answers the entry's number",
      inputSchema: { name: z.string().min(1).max(80), message: z.string().min(1).max(280) },
    },
    async ({ name, message }) => {
      guestbook.push(`${name}: ${message}`);
      return { content: [{ type: "text", text: JSON.stringify({ entry: guestbook.length, signed: `${name}: ${message}` }) }] };
    },
  );
  return server;
}

/**
 * Starts the server on 127.0.0.1 (`port`, default {@link EXAMPLE_MCP_PORT}; 0 for any free one).
 * @returns {Promise<{ url: string, close(): Promise<void> }>}
 * @throws Error with `code: "EADDRINUSE"` when the port is taken
 */
export async function startExampleMcp(port = EXAMPLE_MCP_PORT) {
  /** @type {string[]} */
  const guestbook = [];
  const http = createServer(async (req, res) => {
    if (new URL(req.url ?? "/", "http://x").pathname !== "/mcp") return void res.writeHead(404).end("not found: the MCP endpoint is /mcp\n");
    const server = almanac(guestbook);
    await serveStateless(server, req, res);
  });
  await new Promise((resolve, reject) => {
    http.once("error", reject);
    http.listen(port, "127.0.0.1", () => resolve(undefined));
  });
  const address = http.address();
  const bound = address && typeof address === "object" ? address.port : port;
  return { url: `http://127.0.0.1:${bound}/mcp`, close: () => new Promise((resolve) => http.close(() => resolve(undefined))) };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { url } = await startExampleMcp();
  console.log(`almanac: example MCP server on ${url}`);
}
