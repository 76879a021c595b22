/**
 * The baselines' authentication, the same work weft does for an API key (src/http/auth.ts): the
 * bearer token (header, or `?access_token=` on a WebSocket upgrade) hashed with SHA-256 and
 * compared in constant time with the hash in `BENCH_API_KEY_SHA256`. A deployed Worker checks a
 * credential on every request; a baseline that skipped it would do less than weft does.
 * @module
 */

let stored: Uint8Array | null = null;

/** True when the request carries the key whose SHA-256 (hex) is `hashHex`. */
export async function authorized(request: Request, hashHex: string): Promise<boolean> {
  stored ??= new Uint8Array((hashHex.match(/[0-9a-f]{2}/gi) ?? []).map((h) => parseInt(h, 16)));
  const header = request.headers.get("authorization");
  const m = header ? /^Bearer\s+(\S+)$/i.exec(header) : null;
  const token = m ? m[1]! : request.headers.get("upgrade")?.toLowerCase() === "websocket" ? new URL(request.url).searchParams.get("access_token") : null;
  if (!token) return false;
  const given = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token)));
  return given.byteLength === stored.byteLength && crypto.subtle.timingSafeEqual(given, stored);
}

/** The answer to a request without the key. */
export const unauthorized = (): Response => Response.json({ error: { code: "unauthenticated" } }, { status: 401 });

/**
 * The Worker of an Agents SDK baseline: the rows counter, then the key check, then the SDK's
 * router (`routeAgentRequest`, which finds the agent's Durable Object from the path).
 */
export function agentsWorker(route: (request: Request, env: Record<string, unknown>) => Promise<Response | null>, rowsRoute: (request: Request) => Response | null): ExportedHandler<{ BENCH_API_KEY_SHA256: string }> {
  return {
    async fetch(request, env) {
      const rows = rowsRoute(request);
      if (rows) return rows;
      if (!(await authorized(request, env.BENCH_API_KEY_SHA256))) return unauthorized();
      return (await route(request, env)) ?? new Response("not found", { status: 404 });
    },
  };
}
