/**
 * Which hosts and browser origins weft serves: `POST /mcp` always (the MCP transport's defence
 * against DNS rebinding: a page whose name was made to resolve to a local weft calls it as its own
 * origin), and every route when no token is asked for (development mode, `WEFT_AUTH = "none"`).
 * @module
 */
import { log } from "../log.js";
import { perEnv } from "../per-env.js";

/** Whether a host name is this machine (`localhost`, a `*.localhost` name, `127.x.x.x`, `[::1]`): a local `wrangler dev` answers them. */
export function isLoopback(hostname: string): boolean {
  return /^(localhost|127(?:\.\d{1,3}){3}|\[::1\]|[a-z0-9-]+\.localhost)$/i.test(hostname);
}

/** Comma-separated list setting as trimmed, lower-cased, non-empty entries. */
const listOf = (value: unknown): string[] =>
  String(value ?? "")
    .split(",")
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);

/**
 * The origins `WEFT_CORS_ORIGINS` lists (`scheme://host[:port]`, lower-cased as browsers send
 * them; a trailing `/` dropped): the one source for CORS and the browser checks here. An entry that
 * names no one origin is left out, said once: `null` above all, the `Origin` of every sandboxed
 * frame and file:// page on any site, which would let any page act as the caller where no token is asked.
 */
export const corsOrigins = perEnv((env: object): string[] => {
  const origins: string[] = [];
  for (const entry of listOf((env as { WEFT_CORS_ORIGINS?: unknown }).WEFT_CORS_ORIGINS)) {
    const origin = URL.canParse(entry) ? new URL(entry).origin : "null";
    if (origin !== "null" && (entry === origin || entry === `${origin}/`)) origins.push(origin);
    else log("warn", `weft: WEFT_CORS_ORIGINS: ${JSON.stringify(entry)} is left out: ${entry === "null" ? "it is the Origin of every sandboxed frame and file:// page, on any site" : "it is not one origin (scheme://host[:port])"}`);
  }
  return origins;
});

/**
 * Why `/mcp` refuses a request from `url` (its Host) with `origin` (the `Origin` header, null
 * without one), or null when it serves it.
 * - `WEFT_MCP_HOSTS` set: the Host (`name` or `name:port`) must be one of them.
 * - An `Origin` (a browser) is checked by {@link originRefusal}.
 * A request with no `Origin` (an MCP client outside a browser) is checked by Host only. `env`:
 * the Worker's variables (`WEFT_MCP_HOSTS`, `WEFT_CORS_ORIGINS`).
 */
export function mcpRefusal(url: URL, origin: string | null, env: object): string | null {
  const hosts = listOf((env as { WEFT_MCP_HOSTS?: unknown }).WEFT_MCP_HOSTS);
  if (hosts.length > 0 && !listed(url, hosts)) return `Host ${url.host.toLowerCase()} is not served at /mcp (WEFT_MCP_HOSTS)`;
  return originRefusal(url, origin, env, "at /mcp");
}

/**
 * Why a browser request (one with an `Origin`) is refused, or null: it must come from an origin in
 * `WEFT_CORS_ORIGINS`, or be the request's own origin on a host weft serves by name (a loopback
 * name, or one in `WEFT_MCP_HOSTS`), so a page whose name was made to resolve to
 * weft's address (DNS rebinding) is refused even though it looks same-origin. `where` ends the message.
 */
export function originRefusal(url: URL, origin: string | null, env: object, where = "here"): string | null {
  if (origin === null) return null;
  if (corsOrigins(env).includes(origin.toLowerCase())) return null;
  if (origin.toLowerCase() === url.origin.toLowerCase() && servedByName(url, env)) return null;
  return `Origin ${origin} is not served ${where}: list it in WEFT_CORS_ORIGINS, or its host in WEFT_MCP_HOSTS`;
}

/**
 * Why a request to `url` is refused when no token is asked for (development mode, `WEFT_AUTH =
 * "none"`), or null: its Host must be one weft serves by name ({@link servedByName}), whatever its
 * `Origin`, or a page whose name was made to resolve to weft's address would read it by plain GETs
 * (a browser sends no `Origin` on a same-origin GET).
 */
export function tokenlessRefusal(url: URL, origin: string | null, env: object): string | null {
  if (!servedByName(url, env)) {
    return `Host ${url.host} is not served: with no token to ask for, weft answers only loopback names and the hosts it is named by (WEFT_MCP_HOSTS), so list this one there`;
  }
  return originRefusal(url, origin, env);
}

/**
 * Whether weft serves `url`'s host by name: a loopback name (no page can make a browser name one:
 * rebinding keeps the page's own name), or one in `WEFT_MCP_HOSTS` (`name` or `name:port`).
 */
function servedByName(url: URL, env: object): boolean {
  return isLoopback(url.hostname) || listed(url, listOf((env as { WEFT_MCP_HOSTS?: unknown }).WEFT_MCP_HOSTS));
}

/** Whether `url`'s host is in `hosts`, as `name` or `name:port`. */
const listed = (url: URL, hosts: readonly string[]) => hosts.includes(url.host.toLowerCase()) || hosts.includes(url.hostname.toLowerCase());
