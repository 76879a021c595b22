/**
 * Which hosts and browser origins `POST /mcp` serves: the MCP transport's defence against DNS
 * rebinding (a page whose name was made to resolve to a local weft calls it as its own origin).
 * @module
 */

/** Host names that are this machine: a local `wrangler dev` answers them. */
const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** Comma-separated list setting as trimmed, lower-cased, non-empty entries. */
const listOf = (value: unknown): string[] =>
  String(value ?? "")
    .split(",")
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);

/**
 * Why `/mcp` refuses a request from `url` (its Host) with `origin` (the `Origin` header, null
 * without one), or null when it serves it.
 * - `WEFT_MCP_HOSTS` set: the Host (`name` or `name:port`) must be one of them.
 * - An `Origin` (a browser) must be in `WEFT_CORS_ORIGINS`, or be the request's own origin on a
 *   host weft serves by name: a listed one, or with the setting unset a loopback name. So a page
 *   whose name was rebound to weft's address is refused even though it looks same-origin.
 * A request with no `Origin` (an MCP client outside a browser) is checked by Host only. `env`:
 * the Worker's variables (`WEFT_MCP_HOSTS`, `WEFT_CORS_ORIGINS`).
 */
export function mcpRefusal(url: URL, origin: string | null, env: object): string | null {
  const vars = env as { WEFT_MCP_HOSTS?: unknown; WEFT_CORS_ORIGINS?: unknown };
  const hosts = listOf(vars.WEFT_MCP_HOSTS);
  const host = url.host.toLowerCase();
  const named = hosts.length > 0 ? hosts.includes(host) || hosts.includes(url.hostname.toLowerCase()) : LOOPBACK.has(url.hostname.toLowerCase());
  if (hosts.length > 0 && !named) return `Host ${host} is not served at /mcp (WEFT_MCP_HOSTS)`;
  if (origin === null) return null;
  if (listOf(vars.WEFT_CORS_ORIGINS).includes(origin.toLowerCase())) return null;
  if (origin.toLowerCase() === url.origin.toLowerCase() && named) return null;
  return `Origin ${origin} is not served at /mcp: list it in WEFT_CORS_ORIGINS, or its host in WEFT_MCP_HOSTS`;
}
