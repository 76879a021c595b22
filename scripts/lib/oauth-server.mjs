// @ts-check
/**
 * A small OAuth 2.1 authorization server over web-standard `Request`/`Response`, following what
 * the MCP authorization spec asks of one: metadata (RFC 8414, PKCE `S256` only), dynamic client
 * registration (RFC 7591) where offered, `/authorize` (known client, exact registered
 * redirect_uri, `response_type=code`, PKCE `S256`, a state; signs its user in at once and
 * redirects back with `code` and `state`), `/token` (authorization_code: the code_verifier
 * checked against the challenge, the same client, redirect_uri and resource, one use;
 * refresh_token: rotated). The tests' authorization servers (scripts/lib/fake-oauth.mjs) and the
 * example's (scripts/example-oauth-mcp-server.mjs) are this one.
 * @module
 */
import { z } from "zod";

/** @param {string} s PKCE S256 of `s` (base64url of its SHA-256). */
export async function s256(s) {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(s)));
  return btoa(String.fromCharCode(...digest)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/**
 * @typedef {object} Grant an access token's grant
 * @property {string} login the user signed in
 * @property {string} resource the resource indicator it was issued for
 * @property {boolean} expired refused from now on (as a server-side revocation would)
 */

/**
 * What one or more authorization servers share: registered clients, codes, tokens, and a log.
 * @param {Array<[string, { redirectUris: string[], secret?: string }]>} [preRegistered] clients registered beforehand
 */
export function createOAuthState(preRegistered = []) {
  return {
    /** @type {Map<string, { redirectUris: string[], secret?: string }>} */
    clients: new Map(preRegistered),
    /** @type {Map<string, { clientId: string, redirectUri: string, challenge: string, resource: string, login: string, as: string }>} */
    codes: new Map(),
    /** @type {Map<string, Grant>} */
    access: new Map(),
    /** @type {Map<string, { login: string, resource: string, clientId: string }>} */
    refresh: new Map(),
    /** Codes whose next token request answers 503 (a server briefly down), the code kept. @type {Set<string>} */
    failing: new Set(),
    /** While set, refresh requests wait for it (`/__oauth/hold-refresh`, `/__oauth/release`). @type {Promise<void> | null} */
    refreshGate: /** @type {Promise<void> | null} */ (null),
    log: { tokenRequests: 0, tradedCodes: /** @type {string[]} */ ([]), refreshes: 0, refreshesHeld: 0, refused: /** @type {string[]} */ ([]), registrations: 0, expiresIn: 3600 },
  };
}

/** @typedef {ReturnType<typeof createOAuthState>} OAuthState */

/**
 * The grant of access token `token` if it is good for `resource` (issued for it, not expired), else null.
 * @param {OAuthState} state @param {string} token @param {string} resource
 */
export function grantOf(state, token, resource) {
  const grant = state.access.get(token);
  return grant && !grant.expired && grant.resource === resource ? grant : null;
}

/**
 * The 401 a protected resource answers without a good token: `WWW-Authenticate` names its
 * protected-resource metadata (RFC 9728), where a client finds the authorization server.
 * @param {string} resourceMetadata the metadata's URL
 */
export function unauthorized(resourceMetadata) {
  return new Response("unauthorized", { status: 401, headers: { "www-authenticate": `Bearer resource_metadata="${resourceMetadata}"` } });
}

/**
 * One authorization server at `issuer` (its paths at the issuer's origin).
 * @param {OAuthState} state
 * @param {{ issuer: string, registration: boolean, signIn: (query: URLSearchParams) => string, iss?: boolean }} options
 *   `registration`: offers dynamic client registration; `signIn`: the user an `/authorize` request signs in;
 *   `iss`: advertises `authorization_response_iss_parameter_supported` and sends `iss` back (RFC 9207)
 * @returns {(request: Request) => Promise<Response>}
 */
export function authorizationServer(state, { issuer, registration, signIn, iss = false }) {
  const { clients, codes, access, refresh, log } = state;
  const metadata = {
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}/token`,
    ...(registration ? { registration_endpoint: `${issuer}/register` } : {}),
    response_types_supported: ["code"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: ["none", "client_secret_post"],
    ...(iss ? { authorization_response_iss_parameter_supported: true } : {}),
  };

  /** @param {string} error @param {number} [status] */
  const oauthError = (error, status = 400) => {
    log.refused.push(error);
    return Response.json({ error, error_description: error }, { status });
  };

  return async (request) => {
    const url = new URL(request.url);
    if (url.pathname === "/.well-known/oauth-authorization-server") return Response.json(metadata);
    if (url.pathname === "/register" && request.method === "POST" && registration) {
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
      codes.set(code, { clientId: q.get("client_id") ?? "", redirectUri, challenge: q.get("code_challenge") ?? "", resource: q.get("resource") ?? "", login: signIn(q), as: issuer });
      const back = new URL(redirectUri);
      back.searchParams.set("code", code);
      back.searchParams.set("state", q.get("state") ?? "");
      if (iss) back.searchParams.set("iss", issuer);
      return new Response(null, { status: 302, headers: { location: back.href } });
    }
    if (url.pathname === "/token" && request.method === "POST") {
      const form = new URLSearchParams(await request.text());
      log.tokenRequests += 1;
      // Which codes were traded: a test asks about its own, whatever other tests trade meanwhile.
      if (form.get("code")) log.tradedCodes.push(form.get("code") ?? "");
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
        if (state.failing.delete(form.get("code") ?? "")) return new Response("busy", { status: 503 });
        const grant = codes.get(form.get("code") ?? "");
        codes.delete(form.get("code") ?? "");
        if (!grant || grant.clientId !== clientId || grant.redirectUri !== form.get("redirect_uri") || grant.as !== issuer) return oauthError("invalid_grant");
        if ((await s256(form.get("code_verifier") ?? "")) !== grant.challenge) return oauthError("invalid_grant");
        if (form.get("resource") !== grant.resource) return oauthError("invalid_target");
        return issue(grant.login, grant.resource);
      }
      if (form.get("grant_type") === "refresh_token") {
        if (state.refreshGate) {
          log.refreshesHeld += 1;
          await state.refreshGate;
        }
        const old = refresh.get(form.get("refresh_token") ?? "");
        refresh.delete(form.get("refresh_token") ?? "");
        if (!old || old.clientId !== clientId) return oauthError("invalid_grant");
        log.refreshes += 1;
        return issue(old.login, old.resource);
      }
      return oauthError("unsupported_grant_type");
    }
    return new Response("not found", { status: 404 });
  };
}
