// @ts-check
/**
 * A small OAuth 2.1 authorization server and the protected MCP server in front of it, for tests
 * (wired into scripts/lib/fake-mcp.mjs). It follows the rules weft must meet:
 *
 * - `https://oauth.mcp.test/mcp`: an MCP server (the good one) that takes only access tokens this
 *   server issued for its resource; otherwise 401 with `WWW-Authenticate: Bearer resource_metadata=...`.
 *   Its protected-resource metadata (RFC 9728) names `https://as.mcp.test`.
 * - `https://as.mcp.test`: the authorization server of scripts/lib/oauth-server.mjs (metadata,
 *   registration, PKCE S256, one-use codes, rotated refresh tokens), whose `/authorize` signs in
 *   the user named by `login` at once. It sends `iss` (RFC 9207), as weft requires of the
 *   authorization server of a server a user adds.
 * - `https://oauthpre.mcp.test/mcp` with `https://aspre.mcp.test`: the same without registration;
 *   one client is registered beforehand: `weft-pre` with secret `pre-secret-123`. It sends no `iss`.
 * - `https://oauthhttp.mcp.test/mcp`: its metadata names an authorization server on plain http.
 * - `/__oauth` (any host): what happened (`tokenRequests`, refreshes, `codes` refused), and
 *   `POST /__oauth/expire` makes every access token refused (as a server-side revocation would),
 *   `/__oauth/fail-code?code=` makes the next token request for that code answer 503,
 *   `/__oauth/hold-refresh` makes refresh requests wait (counted in `refreshesHeld`) until
 *   `/__oauth/release`.
 * @module
 */
import { authorizationServer, createOAuthState, grantOf, unauthorized } from "./oauth-server.mjs";

/**
 * @param {(request: Request, make: () => any) => Promise<Response>} serve serves a session of an MCP server
 * @param {(login?: string) => any} goodServer
 */
export function createFakeOAuth(serve, goodServer) {
  // One state for both authorization servers (scripts/lib/oauth-server.mjs): `/__oauth` counts them together.
  const state = createOAuthState([["weft-pre", { redirectUris: ["https://weft.test/mcp-oauth/callback"], secret: "pre-secret-123" }]]);
  const { access, log } = state;
  let releaseRefresh = () => {};
  /** @param {URLSearchParams} q */
  const signIn = (q) => q.get("login") ?? "someone";
  const as = authorizationServer(state, { issuer: "https://as.mcp.test", registration: true, signIn, iss: true });
  const aspre = authorizationServer(state, { issuer: "https://aspre.mcp.test", registration: false, signIn });

  /** @param {Request} request */
  const authorizationServerOf = (request) => (new URL(request.url).hostname.startsWith("aspre") ? aspre(request) : as(request));

  /** @param {Request} request */
  async function resourceServer(request) {
    const url = new URL(request.url);
    const origin = url.origin.replace(/^http:/, "https:");
    const resource = `${origin}/mcp`;
    if (url.pathname.startsWith("/.well-known/oauth-protected-resource")) {
      const as = url.hostname.startsWith("oauthpre") ? "https://aspre.mcp.test" : url.hostname.startsWith("oauthhttp") ? "http://as.mcp.test" : "https://as.mcp.test";
      return Response.json({ resource, authorization_servers: [as], bearer_methods_supported: ["header"] });
    }
    if (url.pathname.startsWith("/.well-known/")) return new Response("not found", { status: 404 });
    const grant = grantOf(state, (request.headers.get("authorization") ?? "").replace(/^Bearer /, ""), resource);
    if (!grant) return unauthorized(`${origin}/.well-known/oauth-protected-resource/mcp`);
    return serve(request, () => goodServer(grant.login));
  }

  /** @param {Request} request @returns {Promise<Response> | null} */
  function handle(request) {
    const url = new URL(request.url);
    if (url.pathname === "/__oauth") return Promise.resolve(Response.json(log));
    if (url.pathname === "/__oauth/expire") {
      for (const grant of access.values()) grant.expired = true;
      return Promise.resolve(new Response(null, { status: 204 }));
    }
    if (url.pathname === "/__oauth/fail-code") {
      state.failing.add(url.searchParams.get("code") ?? "");
      return Promise.resolve(new Response(null, { status: 204 }));
    }
    if (url.pathname === "/__oauth/hold-refresh") {
      state.refreshGate ??= new Promise((resolve) => (releaseRefresh = resolve));
      return Promise.resolve(new Response(null, { status: 204 }));
    }
    if (url.pathname === "/__oauth/release") {
      state.refreshGate = null;
      releaseRefresh();
      return Promise.resolve(new Response(null, { status: 204 }));
    }
    if (url.pathname === "/__oauth/lifetime") {
      log.expiresIn = Number(url.searchParams.get("s") ?? "3600");
      return Promise.resolve(new Response(null, { status: 204 }));
    }
    const host = url.hostname;
    if (host === "as.mcp.test" || host === "aspre.mcp.test") return authorizationServerOf(request);
    if (host === "oauth.mcp.test" || host === "oauthpre.mcp.test" || host === "oauthhttp.mcp.test") return resourceServer(request);
    return null;
  }

  return { handle };
}
