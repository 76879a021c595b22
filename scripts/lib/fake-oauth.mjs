// @ts-check
/**
 * A small OAuth 2.1 authorization server and the protected MCP server in front of it, for tests
 * (wired into scripts/lib/fake-mcp.mjs). It follows the rules weft must meet:
 *
 * - `https://oauth.mcp.test/mcp`: an MCP server (the good one) that takes only access tokens this
 *   server issued for its resource; otherwise 401 with `WWW-Authenticate: Bearer resource_metadata=...`.
 *   Its protected-resource metadata (RFC 9728) names `https://as.mcp.test`.
 * - `https://as.mcp.test`: metadata (RFC 8414: S256 only), dynamic client registration (RFC
 *   7591), `/authorize` (checks client, exact registered redirect_uri, PKCE S256, resource;
 *   signs in the user named by `login` at once and redirects with `code` and `state`), `/token`
 *   (authorization_code checks the code_verifier against the challenge, the client and
 *   redirect_uri, one use; refresh_token rotates).
 * - `https://oauthpre.mcp.test/mcp` with `https://aspre.mcp.test`: the same without registration;
 *   one client is registered beforehand: `weft-pre` with secret `pre-secret-123`.
 * - `https://oauthhttp.mcp.test/mcp`: its metadata names an authorization server on plain http.
 * - `/__oauth` (any host): what happened (`tokenRequests`, refreshes, `codes` refused), and
 *   `POST /__oauth/expire` makes every access token refused (as a server-side revocation would).
 * @module
 */
import { z } from "zod";

/** @param {string} s */
async function s256(s) {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(s)));
  return btoa(String.fromCharCode(...digest)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/**
 * @param {(request: Request, make: () => any) => Promise<Response>} serve serves a session of an MCP server
 * @param {(login?: string) => any} goodServer
 */
export function createFakeOAuth(serve, goodServer) {
  /** @type {Map<string, { redirectUris: string[], secret?: string }>} */
  const clients = new Map([["weft-pre", { redirectUris: ["https://weft.test/mcp-oauth/callback"], secret: "pre-secret-123" }]]);
  /** @type {Map<string, { clientId: string, redirectUri: string, challenge: string, resource: string, login: string, as: string }>} */
  const codes = new Map();
  /** @type {Map<string, { login: string, resource: string, expired: boolean }>} */
  const access = new Map();
  /** @type {Map<string, { login: string, resource: string, clientId: string }>} */
  const refresh = new Map();
  const log = { tokenRequests: 0, refreshes: 0, refused: /** @type {string[]} */ ([]), registrations: 0, expiresIn: 3600 };

  /** @param {string} host */
  const asOf = (host) => (host.startsWith("aspre") ? "https://aspre.mcp.test" : "https://as.mcp.test");

  /** @param {string} issuer */
  const metadata = (issuer) => ({
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}/token`,
    ...(issuer.includes("aspre") ? {} : { registration_endpoint: `${issuer}/register` }),
    response_types_supported: ["code"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: ["none", "client_secret_post"],
  });

  /** @param {string} error @param {number} [status] */
  const oauthError = (error, status = 400) => {
    log.refused.push(error);
    return Response.json({ error, error_description: error }, { status });
  };

  /** @param {Request} request */
  async function authorizationServer(request) {
    const url = new URL(request.url);
    const issuer = asOf(url.hostname);
    if (url.pathname === "/.well-known/oauth-authorization-server") return Response.json(metadata(issuer));
    if (url.pathname === "/register" && request.method === "POST" && !issuer.includes("aspre")) {
      const body = await request.json();
      const parsed = z.object({ redirect_uris: z.array(z.string().url()).min(1), token_endpoint_auth_method: z.string().optional() }).safeParse(body);
      if (!parsed.success) return oauthError("invalid_client_metadata");
      const id = `client-${crypto.randomUUID()}`;
      clients.set(id, { redirectUris: parsed.data.redirect_uris });
      log.registrations += 1;
      return Response.json({ ...body, client_id: id, client_id_issued_at: Math.floor(Date.now() / 1000) }, { status: 201 });
    }
    if (url.pathname === "/authorize" && request.method === "GET") {
      const q = url.searchParams;
      const client = clients.get(q.get("client_id") ?? "");
      const redirectUri = q.get("redirect_uri") ?? "";
      // Never redirect to an unregistered URI.
      if (!client || !client.redirectUris.includes(redirectUri)) return oauthError("invalid_request");
      if (q.get("response_type") !== "code" || q.get("code_challenge_method") !== "S256" || !q.get("code_challenge") || !q.get("state")) return oauthError("invalid_request");
      const code = crypto.randomUUID();
      codes.set(code, { clientId: q.get("client_id") ?? "", redirectUri, challenge: q.get("code_challenge") ?? "", resource: q.get("resource") ?? "", login: q.get("login") ?? "someone", as: issuer });
      const back = new URL(redirectUri);
      back.searchParams.set("code", code);
      back.searchParams.set("state", q.get("state") ?? "");
      return new Response(null, { status: 302, headers: { location: back.href } });
    }
    if (url.pathname === "/token" && request.method === "POST") {
      const form = new URLSearchParams(await request.text());
      log.tokenRequests += 1;
      const clientId = form.get("client_id") ?? "";
      const client = clients.get(clientId);
      if (!client) return oauthError("invalid_client", 401);
      if (client.secret !== undefined && form.get("client_secret") !== client.secret) return oauthError("invalid_client", 401);
      /** @param {string} login @param {string} resource */
      const issue = (login, resource) => {
        const accessToken = `at-${crypto.randomUUID()}`;
        const refreshToken = `rt-${crypto.randomUUID()}`;
        access.set(accessToken, { login, resource, expired: false });
        refresh.set(refreshToken, { login, resource, clientId });
        return Response.json({ access_token: accessToken, token_type: "Bearer", expires_in: log.expiresIn, refresh_token: refreshToken });
      };
      if (form.get("grant_type") === "authorization_code") {
        const grant = codes.get(form.get("code") ?? "");
        codes.delete(form.get("code") ?? "");
        if (!grant || grant.clientId !== clientId || grant.redirectUri !== form.get("redirect_uri") || grant.as !== issuer) return oauthError("invalid_grant");
        if ((await s256(form.get("code_verifier") ?? "")) !== grant.challenge) return oauthError("invalid_grant");
        if (form.get("resource") !== grant.resource) return oauthError("invalid_target");
        return issue(grant.login, grant.resource);
      }
      if (form.get("grant_type") === "refresh_token") {
        const old = refresh.get(form.get("refresh_token") ?? "");
        refresh.delete(form.get("refresh_token") ?? "");
        if (!old || old.clientId !== clientId) return oauthError("invalid_grant");
        log.refreshes += 1;
        return issue(old.login, old.resource);
      }
      return oauthError("unsupported_grant_type");
    }
    return new Response("not found", { status: 404 });
  }

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
    const token = (request.headers.get("authorization") ?? "").replace(/^Bearer /, "");
    const grant = access.get(token);
    if (!grant || grant.expired || grant.resource !== resource) {
      return new Response("unauthorized", { status: 401, headers: { "www-authenticate": `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"` } });
    }
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
    if (url.pathname === "/__oauth/lifetime") {
      log.expiresIn = Number(url.searchParams.get("s") ?? "3600");
      return Promise.resolve(new Response(null, { status: 204 }));
    }
    const host = url.hostname;
    if (host === "as.mcp.test" || host === "aspre.mcp.test") return authorizationServer(request);
    if (host === "oauth.mcp.test" || host === "oauthpre.mcp.test" || host === "oauthhttp.mcp.test") return resourceServer(request);
    return null;
  }

  return { handle };
}
