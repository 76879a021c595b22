// @ts-check
/**
 * The outbound side of `npm run test:agents` (vitest.agents.config.ts): what a test Worker fetches
 * (a remote MCP server of agents/mcp/, a `live(...)` provider) goes out through Node's fetch.
 * @module
 */

/**
 * Sends `request` (a Request of miniflare's undici, which Node's own fetch does not take as a
 * Request: it reads it as a URL string and throws `Failed to parse URL from [object Request]`)
 * through Node's fetch, with its method, headers, body and redirect mode.
 * @param {Request} request
 * @returns {Promise<Response>}
 */
export async function forwardOutbound(request) {
  const headers = new Headers([...request.headers]);
  headers.delete("host");
  const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer();
  return fetch(request.url, { method: request.method, headers, body, redirect: request.redirect });
}
