/**
 * A user's OAuth connections to remote MCP servers, kept in the user's account Durable Object:
 * per server URL, the tokens (sealed with src/account/mcp-vault.ts), refreshed before they
 * expire and when the server refused them; and the authorizations under way (PKCE verifier,
 * bound to one thread, used once, expiring). Any of the user's threads asks here for a token, so
 * a connection outlives a thread's hibernation, eviction or a deploy. The network side is
 * src/remote/oauth.ts.
 * @module
 */
import type { OAuthClientInformationMixed, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { WeftError } from "../errors.js";
import type { Caller, RpcResult } from "../rpc.js";
import type { McpOAuthAuth } from "../remote/define.js";
import { type OAuthPlan, REFRESH_AHEAD_MS, authorizationUrl, clientFor, discover, exchangeCode, redirectUriOf, refreshTokens } from "../remote/oauth.js";
import { Vault } from "./mcp-vault.js";

/** Tables of the connections (created with the account's schema). */
export const MCP_CONNECTIONS_SCHEMA = `
  CREATE TABLE IF NOT EXISTS account_mcp_tokens (url TEXT PRIMARY KEY, server TEXT NOT NULL, sealed TEXT NOT NULL, expires_at INTEGER, updated_at INTEGER NOT NULL);
  CREATE TABLE IF NOT EXISTS account_mcp_pending (nonce TEXT PRIMARY KEY, thread_id TEXT NOT NULL, server TEXT NOT NULL, url TEXT NOT NULL, sealed TEXT NOT NULL, expires_at INTEGER NOT NULL);
`;

/** How long an authorization URL can be followed, in milliseconds. */
export const AUTHORIZATION_TTL_MS = 10 * 60_000;

/** A thread's request for a server's token. */
export interface McpTokenRequest {
  /** The server's name in the thread's registry (said in messages and listings). */
  server: string;
  /** The server's URL: tokens are kept per URL, so a server at another URL never gets them. */
  url: string;
  auth: McpOAuthAuth;
  userId: string;
  /** The thread asking: an authorization started for it resumes it. */
  threadId: string;
  /** The token the server just refused (HTTP 401): refreshed, or dropped, instead of given again. */
  rejected?: string;
  /** False: without a usable token, answer `mcp_auth_required` instead of starting an authorization (a listing outside any thread). */
  start?: false;
  /**
   * A server the user added (`POST /mcp-servers`), not one the deployment declares: its
   * authorization server must advertise and send `iss` (RFC 9207), see {@link McpConnections.authorized}.
   */
  userAdded?: true;
}

/** A token, or the URL the user must open first. */
export type McpTokenAnswer = { token: string; expiresAt: number | null } | { authorizationUrl: string };

/** A connection as `GET /account/mcp-connections` shows it (no token). */
export interface McpConnectionInfo {
  server: string;
  url: string;
  /** When the access token expires (epoch ms), null when the server gave no lifetime. */
  expiresAt: number | null;
  updatedAt: number;
}

interface Stored {
  plan: OAuthPlan;
  client: OAuthClientInformationMixed;
  accessToken: string;
  refreshToken?: string;
}

interface Pending {
  plan: OAuthPlan;
  client: OAuthClientInformationMixed;
  codeVerifier: string;
  redirectUri: string;
  authorizationUrl: string;
  userId: string;
  /** The response must carry `iss` equal to the issuer (a server the user added). */
  requireIss?: true;
}

const tokenContext = (userId: string, url: string) => `tokens\n${userId}\n${url}`;
const pendingContext = (userId: string, nonce: string) => `pending\n${userId}\n${nonce}`;

/** The connections of one account. */
export class McpConnections {
  /** Refreshes under way per URL: a rotated refresh token is used once, not by two racing requests. */
  private readonly refreshing = new Map<string, Promise<McpTokenAnswer>>();

  constructor(
    private readonly sql: SqlStorage,
    private readonly env: Readonly<Record<string, unknown>> & { THREAD?: DurableObjectNamespace },
    private readonly now: () => number = Date.now,
  ) {}

  /** A token for `request.url`: the stored one, refreshed when near expiry or refused, else a new authorization's URL. */
  async token(request: McpTokenRequest): Promise<McpTokenAnswer> {
    const running = this.refreshing.get(request.url);
    // A token another request just got is this one's too; an authorization URL is the other thread's.
    const shared = running ? await running.catch(() => null) : null;
    if (shared && "token" in shared && shared.token !== request.rejected) return shared;
    const answer = this.tokenOnce(request);
    this.refreshing.set(request.url, answer);
    try {
      return await answer;
    } finally {
      this.refreshing.delete(request.url);
    }
  }

  private async tokenOnce(request: McpTokenRequest): Promise<McpTokenAnswer> {
    const vault = await Vault.of(this.env);
    const row = this.sql.exec<{ sealed: string; expires_at: number | null }>("SELECT sealed, expires_at FROM account_mcp_tokens WHERE url = ?", request.url).toArray()[0];
    if (row) {
      const stored = await vault.open<Stored>(row.sealed, tokenContext(request.userId, request.url)).catch(() => null);
      const fresh = row.expires_at === null || row.expires_at > this.now() + REFRESH_AHEAD_MS;
      if (stored && stored.accessToken !== request.rejected && fresh) return { token: stored.accessToken, expiresAt: row.expires_at };
      if (stored?.refreshToken !== undefined) {
        try {
          const tokens = await refreshTokens(request.server, stored.plan, stored.client, stored.refreshToken);
          const expiresAt = await this.store(vault, request.userId, request.server, request.url, stored.plan, stored.client, { ...tokens, refresh_token: tokens.refresh_token ?? stored.refreshToken });
          return { token: tokens.access_token, expiresAt };
        } catch (e) {
          // An authorization server out of reach is a transient failure: the connection stays.
          if (e instanceof WeftError && e.code === "mcp_unreachable") throw e;
          // A refused refresh ends the connection: the user authorizes again.
        }
      }
      this.sql.exec("DELETE FROM account_mcp_tokens WHERE url = ?", request.url);
    }
    if (request.start === false) throw new WeftError("mcp_auth_required", `mcp server "${request.server}": not connected yet; a call of one of its tools in a thread asks for the authorization`, { mcpServer: request.server });
    return { authorizationUrl: await this.start(vault, request) };
  }

  /** An authorization URL for the thread: one still open for it is given again, else a new one. */
  private async start(vault: Vault, request: McpTokenRequest): Promise<string> {
    this.sql.exec("DELETE FROM account_mcp_pending WHERE expires_at <= ?", this.now());
    const open = this.sql.exec<{ nonce: string; sealed: string }>("SELECT nonce, sealed FROM account_mcp_pending WHERE thread_id = ? AND url = ? AND expires_at > ?", request.threadId, request.url, this.now() + 60_000).toArray()[0];
    if (open) {
      const pending = await vault.open<Pending>(open.sealed, pendingContext(request.userId, open.nonce)).catch(() => null);
      if (pending) return pending.authorizationUrl;
    }
    const redirectUri = redirectUriOf(this.env);
    const plan = await discover(request.server, new URL(request.url), request.auth);
    if (request.userAdded && (plan.metadata as { authorization_response_iss_parameter_supported?: unknown }).authorization_response_iss_parameter_supported !== true) {
      // RFC 9700 4.4: weft sends one redirect URI to every authorization server, so without `iss` a
      // code could come from another server than the one asked (the mix-up attack).
      throw new WeftError(
        "mcp_refused",
        `mcp server "${request.server}": its authorization server ${plan.authorizationServer} does not advertise authorization_response_iss_parameter_supported (RFC 9207), which weft requires of a server you add: without iss weft cannot tell which authorization server a code comes from. Ask the server's operator to support RFC 9207, or the deployment's author to declare the server in agents/mcp/`,
        { mcpServer: request.server, authorizationServer: plan.authorizationServer },
      );
    }
    const secret = request.auth.clientSecretEnv === undefined ? undefined : this.env[request.auth.clientSecretEnv];
    if (request.auth.clientSecretEnv !== undefined && typeof secret !== "string") {
      throw new WeftError("mcp_auth_required", `mcp server "${request.server}": its client secret ${request.auth.clientSecretEnv} is not a Worker secret here`, { mcpServer: request.server });
    }
    const client = await clientFor(request.server, plan, request.auth, redirectUri, secret as string | undefined);
    const nonce = crypto.randomUUID();
    // The state names the user, the thread and this authorization; signed, so none is swapped.
    const state = await vault.sign({ u: request.userId, t: request.threadId, n: nonce });
    const { url, codeVerifier } = await authorizationUrl(plan, client, redirectUri, state);
    const pending: Pending = { plan, client, codeVerifier, redirectUri, authorizationUrl: url, userId: request.userId, ...(request.userAdded ? { requireIss: true as const } : {}) };
    this.sql.exec(
      "INSERT INTO account_mcp_pending (nonce, thread_id, server, url, sealed, expires_at) VALUES (?, ?, ?, ?, ?, ?)",
      nonce,
      request.threadId,
      request.server,
      request.url,
      await vault.seal(pending, pendingContext(request.userId, nonce)),
      this.now() + AUTHORIZATION_TTL_MS,
    );
    return url;
  }

  /** Keeps `tokens` for `url`; returns when the access token expires (epoch ms), null when the server said not. */
  private async store(vault: Vault, userId: string, server: string, url: string, plan: OAuthPlan, client: OAuthClientInformationMixed, tokens: OAuthTokens): Promise<number | null> {
    const stored: Stored = { plan, client, accessToken: tokens.access_token, ...(tokens.refresh_token ? { refreshToken: tokens.refresh_token } : {}) };
    const expiresAt = typeof tokens.expires_in === "number" ? this.now() + tokens.expires_in * 1000 : null;
    this.sql.exec(
      "INSERT OR REPLACE INTO account_mcp_tokens (url, server, sealed, expires_at, updated_at) VALUES (?, ?, ?, ?, ?)",
      url,
      server,
      await vault.seal(stored, tokenContext(userId, url)),
      expiresAt,
      this.now(),
    );
    return expiresAt;
  }

  /**
   * The redirect of a pending authorization came back with `code`, and a browser signed in to
   * weft as `by` hands it over: `state` (verified by the caller) must name this user, its thread
   * and an open authorization, used once. Only the user who started it completes it (RFC 6749
   * 10.12: the state is bound to that user's own credential, not to whoever holds the URL), so a
   * URL forwarded to someone else cannot link their account at the server to this user; a refusal
   * for that leaves the authorization open. Trades the code (with the PKCE verifier) for tokens,
   * keeps them, and wakes the thread, whose parked call then goes on. `iss` (RFC 9207) must be
   * the issuer the authorization went to, and is required when that server says it sends one or
   * the server is one the user added: else a code another server issued (the mix-up attack)
   * would be sent to this one's token endpoint.
   * @throws WeftError `mcp_wrong_user` (403) when `by` is not the state's user; `invalid_request`
   * for a state that names no open authorization here (path `state`), or an `iss` of another
   * issuer (path `iss`).
   */
  async authorized(state: Record<string, string>, code: string, by: string, iss?: string): Promise<{ server: string; threadId: string }> {
    if (!state.u || by !== state.u) {
      throw new WeftError("mcp_wrong_user", "state: this authorization was started by another weft user; only that user, signed in to weft, can complete it (nothing was connected)", { path: ["state"] });
    }
    const nonce = state.n ?? "";
    const row = this.sql.exec<{ thread_id: string; server: string; url: string; sealed: string; expires_at: number }>("SELECT * FROM account_mcp_pending WHERE nonce = ?", nonce).toArray()[0];
    const refused = () => new WeftError("invalid_request", "state: names no authorization under way (it expired, was used, or was never made)", { path: ["state"] });
    if (!row || row.thread_id !== state.t || row.expires_at <= this.now() || !state.u) throw refused();
    // Used once, whatever the exchange answers.
    this.sql.exec("DELETE FROM account_mcp_pending WHERE nonce = ?", nonce);
    const vault = await Vault.of(this.env);
    const pending = await vault.open<Pending>(row.sealed, pendingContext(state.u, nonce)).catch(() => null);
    if (!pending || pending.userId !== state.u) throw refused();
    const { issuer, authorization_response_iss_parameter_supported: issSent } = pending.plan.metadata as { issuer: string; authorization_response_iss_parameter_supported?: unknown };
    if (iss !== undefined ? iss !== issuer : issSent === true || pending.requireIss === true) {
      throw new WeftError("invalid_request", `iss: the authorization response names ${iss === undefined ? "no issuer" : JSON.stringify(iss)}, not ${issuer}, the authorization server asked (RFC 9207)`, { path: ["iss"] });
    }
    const tokens = await exchangeCode(row.server, pending.plan, pending.client, code, pending.codeVerifier, pending.redirectUri);
    await this.store(vault, state.u, row.server, row.url, pending.plan, pending.client, tokens);
    // Other authorizations of the same server by this user are moot now.
    this.sql.exec("DELETE FROM account_mcp_pending WHERE url = ?", row.url);
    await this.wake(state.u, row.thread_id);
    return { server: row.server, threadId: row.thread_id };
  }

  /** Tells the thread a connection it waits on is made (as a child thread tells its parent). */
  private async wake(userId: string, threadId: string): Promise<void> {
    const ns = this.env.THREAD;
    if (!ns) return;
    const owner: Caller = { userId, name: "account", roles: [], admin: false };
    const stub = ns.get(ns.idFromString(threadId)) as unknown as { childChanged(caller: Caller): Promise<RpcResult<null>> };
    await stub.childChanged(owner).catch(() => undefined);
  }

  /** Whether tokens are kept for `url`. */
  has(url: string): boolean {
    return this.sql.exec("SELECT 1 FROM account_mcp_tokens WHERE url = ?", url).toArray().length > 0;
  }

  /** The user's connections, without their tokens. */
  list(): McpConnectionInfo[] {
    return this.sql
      .exec<{ server: string; url: string; expires_at: number | null; updated_at: number }>("SELECT server, url, expires_at, updated_at FROM account_mcp_tokens ORDER BY server, url")
      .toArray()
      .map((r) => ({ server: r.server, url: r.url, expiresAt: r.expires_at, updatedAt: r.updated_at }));
  }

  /** Removes the tokens of every connection named `server` (and its authorizations under way). */
  revoke(server: string): { deleted: boolean } {
    const had = this.sql.exec("SELECT 1 FROM account_mcp_tokens WHERE server = ?", server).toArray().length > 0;
    this.sql.exec("DELETE FROM account_mcp_tokens WHERE server = ?", server);
    this.sql.exec("DELETE FROM account_mcp_pending WHERE server = ?", server);
    return { deleted: had };
  }
}
