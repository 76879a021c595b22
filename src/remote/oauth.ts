/**
 * OAuth 2.1 for remote MCP servers, the network side (MCP authorization spec, through the MCP
 * SDK's client helpers): protected-resource metadata (RFC 9728) and authorization-server
 * metadata (RFC 8414) discovery, dynamic client registration (RFC 7591) where the server offers
 * it, the authorization URL with PKCE (S256), and the code and refresh-token grants. Every
 * request goes through {@link oauthFetch}: https only (http only to a loopback host), no
 * redirect followed, small answers, a deadline. The user's account keeps what this returns
 * (src/account/mcp-connections.ts).
 * @module
 */
import { discoverOAuthServerInfo, exchangeAuthorization, refreshAuthorization, registerClient, startAuthorization } from "@modelcontextprotocol/sdk/client/auth.js";
import { OAuthError, ServerError, TemporarilyUnavailableError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import type { AuthorizationServerMetadata, OAuthClientInformationMixed, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { WeftError, errorMessage } from "../errors.js";
import type { McpOAuthAuth } from "./define.js";
import { isLoopback, isPrivateHost } from "./hosts.js";
import { type GuardedFetch, capped } from "./fetch.js";

/** Largest answer read from a metadata, registration or token endpoint, in bytes. */
export const OAUTH_ANSWER_BYTES = 64 * 1024;

/** Deadline of one request to an OAuth endpoint, in milliseconds. */
export const OAUTH_TIMEOUT_MS = 10_000;

/** How long before its expiry a token is refreshed (and a session opened with it is renewed), in milliseconds. */
export const REFRESH_AHEAD_MS = 60_000;

/** Path of weft's OAuth redirect endpoint (the `redirect_uri` is `WEFT_PUBLIC_URL` + this). */
export const OAUTH_CALLBACK_PATH = "/mcp-oauth/callback";

/** Where a server's tokens come from: the authorization server and what it said of itself. */
export interface OAuthPlan {
  /** The resource indicator (RFC 8707) tokens are asked for: the server's own URL or its metadata's `resource`. */
  resource: string;
  authorizationServer: string;
  metadata: AuthorizationServerMetadata;
  /** Scopes asked for, space-joined; undefined asks for none. */
  scope?: string;
}

/**
 * Why a URL may not be an OAuth endpoint, or null when it may. `loopback` false (a server not on
 * a loopback or private host named it): a loopback, private or link-local host is refused
 * (src/remote/hosts.ts), so remote metadata cannot aim weft's requests at the Worker's own host
 * or network.
 */
export function endpointRefusal(raw: unknown, loopback = true): string | null {
  let url: URL;
  try {
    url = new URL(String(raw));
  } catch {
    return `${JSON.stringify(raw)} is not an absolute URL`;
  }
  if (!loopback && isPrivateHost(url.hostname)) return `${url.origin} is a loopback, private or link-local host, named by a server that is not on one`;
  if (url.protocol === "https:") return null;
  if (url.protocol === "http:" && isLoopback(url.hostname)) return null;
  return `${url.origin} is not https:// (http:// only to a loopback host): codes, secrets and tokens would cross the network in clear`;
}

/**
 * The only fetch OAuth requests get: refuses a non-https endpoint (loopback http aside) before
 * sending, follows no redirect, reads at most {@link OAUTH_ANSWER_BYTES} within
 * {@link OAUTH_TIMEOUT_MS}. Failures are `mcp_refused` (a bad endpoint or a redirect),
 * `mcp_unreachable` (network, deadline) or `mcp_protocol_error` (too large).
 */
export function oauthFetch(): GuardedFetch {
  return async (input, init) => {
    const refusal = endpointRefusal(input instanceof URL ? input.href : input);
    if (refusal) throw new WeftError("mcp_refused", `refused an OAuth request: ${refusal}`);
    const target = new URL(String(input));
    const late = new WeftError("mcp_unreachable", `${target.origin} did not answer within ${OAUTH_TIMEOUT_MS} ms`, { origin: target.origin });
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(late), OAUTH_TIMEOUT_MS);
    try {
      let response: Response;
      try {
        response = await fetch(target, { ...init, redirect: "manual", signal: init?.signal ? AbortSignal.any([init.signal, deadline.signal]) : deadline.signal });
      } catch (e) {
        if (deadline.signal.aborted) throw late;
        throw new WeftError("mcp_unreachable", `${target.origin} could not be reached: ${errorMessage(e)}`, { origin: target.origin });
      }
      if (response.status >= 300 && response.status < 400) {
        await response.body?.cancel();
        throw new WeftError("mcp_refused", `${target.origin} answered ${response.status}, a redirect; weft follows no redirect of an OAuth endpoint`, { origin: target.origin });
      }
      // Read whole here (small, capped): nothing of the request outlives it, whatever the SDK reads.
      const body = await capped(response, OAUTH_ANSWER_BYTES, Infinity, target.origin)
        .arrayBuffer()
        .catch((e: unknown) => {
          throw deadline.signal.aborted ? late : e;
        });
      return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
    } finally {
      clearTimeout(timer);
    }
  };
}

/** Text as it was, for a failure of a request that carried no client secret. */
const asIs = (text: string) => text;

/**
 * An OAuth failure as `mcp_auth_required` (or the `mcp_*` error it already is), naming the server;
 * the server's own text through `told` (see {@link serverText}). A WeftError's text is weft's own.
 */
function authFailure(server: string, what: string, e: unknown, told: (text: string) => string = asIs): WeftError {
  if (e instanceof WeftError && e.code !== "mcp_auth_required") return new WeftError(e.code, `mcp server "${server}": ${what}: ${e.message}`, { ...e.details, mcpServer: server });
  return new WeftError("mcp_auth_required", `mcp server "${server}": ${what}: ${e instanceof WeftError ? e.message : told(errorMessage(e))}`, { mcpServer: server });
}

/**
 * What the user may see of a token endpoint's error text (or of an SDK message quoting its body):
 * all of it when the request carried no client secret; else only its HTTP status. The text reaches
 * the user (the completion's answer), and a server may quote the request it refused: the secret
 * (a Worker secret) can be there in forms no list holds (JSON escapes such as `\/`, another
 * encoder's percent-encoding) or cut short (the JSON parser's excerpt of a body that is no OAuth
 * error), so no cleaning of known forms is whole. The OAuth error code stays.
 */
function serverText(client: OAuthClientInformationMixed): (text: string) => string {
  if (typeof client.client_secret !== "string" || client.client_secret === "") return asIs;
  return (text) => `${/^HTTP \d{3}: /.exec(text)?.[0] ?? ""}its text is not shown, as the request carried weft's client secret, which it may quote`;
}

/**
 * Finds the server's authorization server: its protected-resource metadata (RFC 9728, on the
 * server's origin) names it, else the server's own origin is taken (as the MCP spec's fallback);
 * then that server's metadata (RFC 8414, or OpenID discovery). Refused: a `resource` other than
 * the server's URL (RFC 9728 3.3; tokens would be asked for another resource, another path of its
 * origin included), metadata whose `issuer` is
 * not the authorization server, an endpoint that is not https, no S256 PKCE.
 * @throws WeftError `mcp_auth_required`, `mcp_refused`, `mcp_unreachable`, `mcp_protocol_error`.
 */
export async function discover(server: string, serverUrl: URL, auth: McpOAuthAuth, fetchFn: GuardedFetch = oauthFetch()): Promise<OAuthPlan> {
  const loopback = isPrivateHost(serverUrl.hostname);
  const guarded: GuardedFetch = (input, init) => {
    const refusal = endpointRefusal(input instanceof URL ? input.href : input, loopback);
    return refusal ? Promise.reject(new WeftError("mcp_refused", `refused an OAuth request: ${refusal}`)) : fetchFn(input, init);
  };
  let info: Awaited<ReturnType<typeof discoverOAuthServerInfo>>;
  try {
    info = await discoverOAuthServerInfo(serverUrl, { fetchFn: guarded });
  } catch (e) {
    throw authFailure(server, "discovering its authorization server failed", e);
  }
  const refuse = (why: string) => {
    throw new WeftError("mcp_refused", `mcp server "${server}": ${why}`, { mcpServer: server });
  };
  const bare = (u: unknown) => String(u).replace(/\/$/, "");
  // A pre-registered client (and its secret) belongs to the authorization server it was registered at.
  if (auth.authorizationServer !== undefined && bare(info.authorizationServerUrl) !== bare(auth.authorizationServer)) {
    refuse(`its metadata names the authorization server ${info.authorizationServerUrl}, not ${auth.authorizationServer} (auth.authorizationServer)`);
  }
  const resource = info.resourceMetadata?.resource ?? serverUrl.href;
  // RFC 9728 3.3: the resource is the very URL whose metadata was asked for (a trailing slash aside), not another path of its origin.
  if (!URL.canParse(resource) || bare(new URL(resource).href) !== bare(serverUrl.href)) refuse(`its protected-resource metadata names the resource ${resource}, not its own URL ${serverUrl.href} (RFC 9728 3.3)`);
  const metadata = info.authorizationServerMetadata;
  if (!metadata) throw new WeftError("mcp_auth_required", `mcp server "${server}": its authorization server ${info.authorizationServerUrl} publishes no metadata (RFC 8414)`, { mcpServer: server });
  // RFC 8414 3.3: the issuer is the very URL the metadata was asked for (a trailing slash aside), not another tenant of its origin.
  if (bare(metadata.issuer) !== bare(info.authorizationServerUrl)) refuse(`the metadata of ${info.authorizationServerUrl} names the issuer ${metadata.issuer}`);
  for (const endpoint of [info.authorizationServerUrl, metadata.authorization_endpoint, metadata.token_endpoint, metadata.registration_endpoint]) {
    const refusal = endpoint === undefined ? null : endpointRefusal(endpoint, loopback);
    if (refusal) refuse(`its authorization server is refused: ${refusal}`);
  }
  // MCP authorization: no advertised S256 means no PKCE, and the client must not go on.
  if (!metadata.code_challenge_methods_supported?.includes("S256")) refuse("its authorization server does not advertise PKCE with S256 (code_challenge_methods_supported)");
  const scopes = auth.scopes ?? info.resourceMetadata?.scopes_supported ?? metadata.scopes_supported;
  return { resource, authorizationServer: info.authorizationServerUrl, metadata, ...(scopes && scopes.length > 0 ? { scope: scopes.join(" ") } : {}) };
}

/**
 * The client weft is at the authorization server: the pre-registered one of `auth.clientId`,
 * else one registered now (RFC 7591) for `redirectUri`.
 * @throws WeftError `mcp_auth_required` when neither is possible.
 */
export async function clientFor(server: string, plan: OAuthPlan, auth: McpOAuthAuth, redirectUri: string, clientSecret: string | undefined, fetchFn: GuardedFetch = oauthFetch()): Promise<OAuthClientInformationMixed> {
  if (auth.clientId !== undefined) return { client_id: auth.clientId, ...(clientSecret !== undefined ? { client_secret: clientSecret } : {}) };
  if (!plan.metadata.registration_endpoint) {
    throw new WeftError("mcp_auth_required", `mcp server "${server}": its authorization server offers no dynamic client registration; give auth.clientId (a client registered there with the redirect URI ${redirectUri})`, { mcpServer: server });
  }
  try {
    return await registerClient(plan.authorizationServer, {
      metadata: plan.metadata,
      clientMetadata: { client_name: "weft", redirect_uris: [redirectUri], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none", ...(plan.scope ? { scope: plan.scope } : {}) },
      fetchFn,
    });
  } catch (e) {
    throw authFailure(server, "registering weft as a client failed", e);
  }
}

/** The authorization URL (PKCE S256, `state`, `resource`) and the verifier to keep for its code. */
export async function authorizationUrl(plan: OAuthPlan, client: OAuthClientInformationMixed, redirectUri: string, state: string): Promise<{ url: string; codeVerifier: string }> {
  const started = await startAuthorization(plan.authorizationServer, { metadata: plan.metadata, clientInformation: client, redirectUrl: redirectUri, state, resource: new URL(plan.resource), ...(plan.scope ? { scope: plan.scope } : {}) });
  return { url: started.authorizationUrl.href, codeVerifier: started.codeVerifier };
}

/**
 * Trades an authorization code for tokens.
 * @throws WeftError `invalid_request` (path `code`, `details.oauthError`) when the authorization
 * server refused the code (an OAuth error answer: `invalid_grant`...); `mcp_unreachable` when it
 * could not answer now (network, deadline, `server_error`, `temporarily_unavailable`, an answer
 * that is no OAuth error), worth trying again; `mcp_refused` or `mcp_protocol_error` for an
 * endpoint weft refuses or an answer it cannot read. Never `mcp_auth_required`: its 401 would
 * read as weft's own credential refused.
 */
export async function exchangeCode(server: string, plan: OAuthPlan, client: OAuthClientInformationMixed, code: string, codeVerifier: string, redirectUri: string, fetchFn: GuardedFetch = oauthFetch()): Promise<OAuthTokens> {
  try {
    return await exchangeAuthorization(plan.authorizationServer, { metadata: plan.metadata, clientInformation: client, authorizationCode: code, codeVerifier, redirectUri, resource: new URL(plan.resource), fetchFn });
  } catch (e) {
    if (e instanceof WeftError) throw authFailure(server, "trading the code failed", e);
    const text = serverText(client);
    const told = text(errorMessage(e)).slice(0, 300);
    if (e instanceof ServerError || e instanceof TemporarilyUnavailableError) {
      throw new WeftError("mcp_unreachable", `mcp server "${server}": its authorization server could not trade the code now (${told}); complete the same authorization again`, { mcpServer: server });
    }
    if (e instanceof OAuthError) {
      throw new WeftError("invalid_request", `code: the authorization server of mcp server "${server}" refused it (${e.errorCode}: ${told}); open the authorization URL again for a new code`, { path: ["code"], mcpServer: server, oauthError: e.errorCode });
    }
    throw new WeftError("mcp_protocol_error", `mcp server "${server}": its authorization server's answer to the code could not be read: ${told}`, { mcpServer: server });
  }
}

/** Trades a refresh token for new tokens. @throws WeftError `mcp_auth_required` (or another `mcp_*`). */
export async function refreshTokens(server: string, plan: OAuthPlan, client: OAuthClientInformationMixed, refreshToken: string, fetchFn: GuardedFetch = oauthFetch()): Promise<OAuthTokens> {
  try {
    return await refreshAuthorization(plan.authorizationServer, { metadata: plan.metadata, clientInformation: client, refreshToken, resource: new URL(plan.resource), fetchFn });
  } catch (e) {
    throw authFailure(server, "refreshing its token failed", e, serverText(client));
  }
}

/** The redirect URI weft registers and sends: `WEFT_PUBLIC_URL` + {@link OAUTH_CALLBACK_PATH}. @throws WeftError `capability_missing` without it. */
export function redirectUriOf(env: Readonly<Record<string, unknown>>): string {
  const base = env.WEFT_PUBLIC_URL;
  if (typeof base !== "string" || base === "" || endpointRefusal(base) !== null) {
    throw new WeftError("capability_missing", "OAuth connections to MCP servers need WEFT_PUBLIC_URL: the https:// origin this Worker is reached at (its redirect URI is that + /mcp-oauth/callback)");
  }
  return new URL(OAUTH_CALLBACK_PATH, base).href;
}
