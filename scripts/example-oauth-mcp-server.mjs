#!/usr/bin/env node
// @ts-check
/**
 * The example's MCP server behind OAuth (`agents/mcp/diary.ts`), which `npm start` runs beside
 * weft on http://127.0.0.1:8789: each user authorizes weft to keep their own diary there.
 *
 * - `/mcp`: an MCP SDK `McpServer` over Streamable HTTP (stateless) that takes only access tokens
 *   its authorization server issued for it; without one, 401 with `WWW-Authenticate` naming its
 *   protected-resource metadata (RFC 9728, `/.well-known/oauth-protected-resource/mcp`). Two tools:
 *   `write_entry` (a write: adds a dated line to the signed-in user's diary, kept in memory) and
 *   `read_entries` (read-only).
 * - The authorization server, at the same origin: scripts/lib/oauth-server.mjs, the one the tests
 *   use (metadata, dynamic client registration, PKCE S256). Its `/authorize` signs in the
 *   example's one user, `ada`, and approves at once (a real one asks who you are and whether to
 *   allow weft), redirecting back to weft with the code.
 *
 * `node scripts/example-oauth-mcp-server.mjs` runs it alone; `startExampleOAuthMcp()` starts it in a script.
 * @module
 */
import { createServer } from "node:http";
import { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { serveStateless } from "./lib/mcp-http.mjs";
import { authorizationServer, createOAuthState, grantOf, unauthorized } from "./lib/oauth-server.mjs";

/** The port agents/mcp/diary.ts names. */
export const EXAMPLE_OAUTH_MCP_PORT = 8789;

/** One MCP server over `login`'s diary (one per request: the transport is stateless). @param {string[]} diary @param {string} login */
function diaryServer(diary, login) {
  const server = new McpServer({ name: "diary", version: "1.0.0" });
  server.registerTool(
    "write_entry",
    { description: "Write a line in the signed-in user's diary, dated; answers the entry's number", inputSchema: { text: z.string().min(1).max(280) } },
    async ({ text }) => {
      diary.push(`${new Date().toISOString().slice(0, 10)}: ${text}`);
      return { content: [{ type: "text", text: JSON.stringify({ user: login, entry: diary.length }) }] };
    },
  );
  server.registerTool(
    "read_entries",
    { description: "Read the signed-in user's diary, oldest entry first", inputSchema: {}, annotations: { readOnlyHint: true } },
    async () => ({ content: [{ type: "text", text: JSON.stringify({ user: login, entries: diary }) }] }),
  );
  return server;
}

/** A Node request as a web `Request` (for the authorization server). @param {import("node:http").IncomingMessage} req @param {string} origin */
function webRequest(req, origin) {
  const body = req.method === "GET" || req.method === "HEAD" ? undefined : /** @type {ReadableStream} */ (Readable.toWeb(req));
  return new Request(new URL(req.url ?? "/", origin), { method: req.method, headers: /** @type {Record<string, string>} */ (req.headers), ...(body ? { body, duplex: "half" } : {}) });
}

/** Writes a web `Response` to a Node response. @param {Response} answer @param {import("node:http").ServerResponse} res */
async function send(answer, res) {
  res.writeHead(answer.status, Object.fromEntries(answer.headers));
  res.end(Buffer.from(await answer.arrayBuffer()));
}

/**
 * Starts the server on 127.0.0.1 (`port`, default {@link EXAMPLE_OAUTH_MCP_PORT}; 0 for any free one).
 * @returns {Promise<{ url: string, close(): Promise<void> }>}
 * @throws Error with `code: "EADDRINUSE"` when the port is taken
 */
export async function startExampleOAuthMcp(port = EXAMPLE_OAUTH_MCP_PORT) {
  const state = createOAuthState();
  /** @type {Map<string, string[]>} diaries by user */
  const diaries = new Map();
  let origin = "";
  /** @type {(request: Request) => Promise<Response>} */
  let authorization = async () => new Response("starting", { status: 503 });
  const http = createServer(async (req, res) => {
    try {
      const path = new URL(req.url ?? "/", origin).pathname;
      const resource = `${origin}/mcp`;
      if (path === "/.well-known/oauth-protected-resource/mcp" || path === "/.well-known/oauth-protected-resource") {
        return void (await send(Response.json({ resource, authorization_servers: [origin], bearer_methods_supported: ["header"] }), res));
      }
      if (path === "/mcp") {
        const grant = grantOf(state, String(req.headers.authorization ?? "").replace(/^Bearer /, ""), resource);
        if (!grant) return void (await send(unauthorized(`${origin}/.well-known/oauth-protected-resource/mcp`), res));
        if (!diaries.has(grant.login)) diaries.set(grant.login, []);
        return void (await serveStateless(diaryServer(/** @type {string[]} */ (diaries.get(grant.login)), grant.login), req, res));
      }
      await send(await authorization(webRequest(req, origin)), res);
    } catch (e) {
      if (!res.headersSent) res.writeHead(500).end(String(e));
    }
  });
  await new Promise((resolve, reject) => {
    http.once("error", reject);
    http.listen(port, "127.0.0.1", () => resolve(undefined));
  });
  const address = http.address();
  const bound = address && typeof address === "object" ? address.port : port;
  origin = `http://127.0.0.1:${bound}`;
  authorization = authorizationServer(state, { issuer: origin, registration: true, signIn: () => "ada" });
  return { url: `${origin}/mcp`, close: () => new Promise((resolve) => http.close(() => resolve(undefined))) };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { url } = await startExampleOAuthMcp();
  console.log(`diary: example MCP server behind OAuth on ${url}`);
}
