/**
 * A user's OAuth connections to remote MCP servers, kept in the user's account Durable Object:
 * per server definition (its name, URL and `auth`: {@link bindingOf}), the tokens (sealed with
 * src/account/mcp-vault.ts), refreshed before they
 * expire and when the server refused them; and the authorizations under way (PKCE verifier,
 * bound to one thread, used once, expiring). Any of the user's threads asks here for a token, so
 * a connection outlives a thread's hibernation, eviction or a deploy. The network side is
 * src/remote/oauth.ts.
 * @module
 */
import type { OAuthClientInformationMixed, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { WeftError, quotedValue } from "../errors.js";
import type { Caller, RpcResult } from "../rpc.js";
import type { McpOAuthAuth } from "../remote/define.js";
import { type OAuthPlan, REFRESH_AHEAD_MS, authorizationUrl, clientFor, discover, exchangeCode, redirectUriOf, refreshTokens } from "../remote/oauth.js";
import { Vault } from "./mcp-vault.js";

/**
 * Tables of the connections (created with the account's schema, then {@link migrateMcpConnections}).
 * `binding`: the definition a connection was made for ({@link bindingOf}); a token is used by that
 * definition only.
 */
export const MCP_CONNECTIONS_SCHEMA = `
  CREATE TABLE IF NOT EXISTS account_mcp_tokens (binding TEXT PRIMARY KEY, server TEXT NOT NULL, url TEXT NOT NULL, sealed TEXT NOT NULL, expires_at INTEGER, updated_at INTEGER NOT NULL);
  CREATE TABLE IF NOT EXISTS account_mcp_pending (nonce TEXT PRIMARY KEY, thread_id TEXT NOT NULL, server TEXT NOT NULL, url TEXT NOT NULL, sealed TEXT NOT NULL, expires_at INTEGER NOT NULL, binding TEXT);
`;

/** `binding` of a token row kept from before bindings (per URL): never equal to a {@link bindingOf}, so never used. */
export const LEGACY_BINDING_PREFIX = "legacy:";

/**
 * Brings an account made before connections were bound to their definition up to date, at start.
 * Token rows were keyed by URL alone, and which definition got them (a declared server's
 * pre-registered client, or a server the user added at the same URL) is not known: they are kept
 * under a legacy binding that no definition uses (listed, revocable by name, replaced when that
 * name authorizes again), so no server gets a token another definition obtained. Authorizations
 * under way from before are dropped (they last 10 minutes; the user opens a new URL).
 */
export function migrateMcpConnections(sql: SqlStorage): void {
  const has = (table: string, column: string) => sql.exec("SELECT 1 FROM pragma_table_info(?) WHERE name = ?", table, column).toArray().length > 0;
  if (!has("account_mcp_tokens", "binding")) {
    // The primary key was the URL: a new table, since two definitions may share one URL.
    sql.exec(`
      CREATE TABLE account_mcp_tokens_bound (binding TEXT PRIMARY KEY, server TEXT NOT NULL, url TEXT NOT NULL, sealed TEXT NOT NULL, expires_at INTEGER, updated_at INTEGER NOT NULL);
      INSERT INTO account_mcp_tokens_bound (binding, server, url, sealed, expires_at, updated_at) SELECT '${LEGACY_BINDING_PREFIX}' || url, server, url, sealed, expires_at, updated_at FROM account_mcp_tokens;
      DROP TABLE account_mcp_tokens;
      ALTER TABLE account_mcp_tokens_bound RENAME TO account_mcp_tokens;
    `);
  }
  if (!has("account_mcp_pending", "binding")) sql.exec("ALTER TABLE account_mcp_pending ADD COLUMN binding TEXT");
  sql.exec("DELETE FROM account_mcp_pending WHERE binding IS NULL");
}

/**
 * The definition a connection belongs to: SHA-256 (hex) of the server's name, URL and `auth`
 * (keys sorted). Another server at the same URL, the same name at another URL, or another client,
 * scopes or authorization server is another connection: a token got through a deployment's
 * pre-registered client for a declared server never serves a server a user added, and revoking a
 * name removes exactly the connections made under it.
 */
export async function bindingOf(server: string, url: string, auth: McpOAuthAuth): Promise<string> {
  const sorted = Object.fromEntries(Object.entries(auth).sort(([a], [b]) => (a < b ? -1 : 1)));
  const bytes = new TextEncoder().encode(JSON.stringify([server, url, sorted]));
  return [...new Uint8Array(await crypto.subtle.digest("SHA-256", bytes))].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** How long an authorization URL can be followed, in milliseconds. */
export const AUTHORIZATION_TTL_MS = 10 * 60_000;

/** A thread's request for a server's token. */
export interface McpTokenRequest {
  /** The server's name in the thread's registry (said in messages and listings). */
  server: string;
  /** The server's URL; tokens are kept per definition (name, URL, `auth`: {@link bindingOf}). */
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

/** A server the user added is gone, or changed, since the request for its token began. */
const notAdded = (server: string) =>
  new WeftError("mcp_auth_required", `mcp server "${server}": it is no longer one of your servers as it was when this call began (removed or changed), so no authorization is started for it`, { mcpServer: server });

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

const tokenContext = (userId: string, binding: string) => `tokens\n${userId}\n${binding}`;
const pendingContext = (userId: string, nonce: string) => `pending\n${userId}\n${nonce}`;

/** The connections of one account. */
export class McpConnections {
  /** Authorizations whose code is being traded now (by nonce): a second completion waits for none and is refused. */
  private readonly completing = new Set<string>();
  /** Refreshes under way per binding: a rotated refresh token is used once, not by two racing requests. */
  private readonly refreshing = new Map<string, Promise<McpTokenAnswer>>();

  /**
   * @param userServer the stored definition (JSON text) of the server the user added under a name,
   * or undefined: an authorization for a server the user added starts only while it is added.
   */
  constructor(
    private readonly sql: SqlStorage,
    private readonly env: Readonly<Record<string, unknown>> & { THREAD?: DurableObjectNamespace },
    private readonly userServer: (name: string) => string | undefined = () => undefined,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * For a server the user added: its stored definition's text, when it is still the definition
   * `binding` was made of. A removed or replaced server gets no new authorization (an old request
   * in flight, such as a refresh refused after the removal, would start one).
   * @throws WeftError `mcp_auth_required` naming the server otherwise.
   */
  private async addedAs(request: McpTokenRequest, binding: string): Promise<string | undefined> {
    if (!request.userAdded) return undefined;
    const text = this.userServer(request.server);
    const def = text === undefined ? undefined : (JSON.parse(text) as { url?: string; auth?: McpOAuthAuth });
    if (def?.url !== undefined && def.auth?.type === "oauth" && (await bindingOf(request.server, def.url, def.auth)) === binding) return text;
    throw notAdded(request.server);
  }

  /** A token for the request's definition: the stored one, refreshed when near expiry or refused, else a new authorization's URL. */
  async token(request: McpTokenRequest): Promise<McpTokenAnswer> {
    const binding = await bindingOf(request.server, request.url, request.auth);
    const running = this.refreshing.get(binding);
    // A token another request just got is this one's too; an authorization URL is the other thread's.
    const shared = running ? await running.catch(() => null) : null;
    if (shared && "token" in shared && shared.token !== request.rejected) return shared;
    const answer = this.tokenOnce(request, binding);
    this.refreshing.set(binding, answer);
    try {
      return await answer;
    } finally {
      this.refreshing.delete(binding);
    }
  }

  private async tokenOnce(request: McpTokenRequest, binding: string): Promise<McpTokenAnswer> {
    const vault = await Vault.of(this.env);
    const row = this.sql.exec<{ sealed: string; expires_at: number | null }>("SELECT sealed, expires_at FROM account_mcp_tokens WHERE binding = ?", binding).toArray()[0];
    if (row) {
      const stored = await vault.open<Stored>(row.sealed, tokenContext(request.userId, binding)).catch(() => null);
      const fresh = row.expires_at === null || row.expires_at > this.now() + REFRESH_AHEAD_MS;
      if (stored && stored.accessToken !== request.rejected && fresh) return { token: stored.accessToken, expiresAt: row.expires_at };
      if (stored?.refreshToken !== undefined) {
        try {
          const tokens = await refreshTokens(request.server, stored.plan, stored.client, stored.refreshToken);
          // Revoked while the refresh ran (the row is gone): the new tokens are not kept, nor used.
          const stillConnected = () => this.sql.exec("SELECT 1 FROM account_mcp_tokens WHERE binding = ?", binding).toArray().length > 0;
          const expiresAt = await this.store(vault, request.userId, binding, request.server, request.url, stored.plan, stored.client, { ...tokens, refresh_token: tokens.refresh_token ?? stored.refreshToken }, stillConnected);
          if (expiresAt !== undefined) return { token: tokens.access_token, expiresAt };
        } catch (e) {
          // An authorization server out of reach is a transient failure: the connection stays.
          if (e instanceof WeftError && e.code === "mcp_unreachable") throw e;
          // A refused refresh ends the connection: the user authorizes again.
        }
      }
      this.sql.exec("DELETE FROM account_mcp_tokens WHERE binding = ?", binding);
    }
    if (request.start === false) throw new WeftError("mcp_auth_required", `mcp server "${request.server}": not connected yet; a call of one of its tools in a thread asks for the authorization`, { mcpServer: request.server });
    return { authorizationUrl: await this.start(vault, request, binding) };
  }

  /** An authorization URL for the thread: one still open for it is given again, else a new one. */
  private async start(vault: Vault, request: McpTokenRequest, binding: string): Promise<string> {
    this.sql.exec("DELETE FROM account_mcp_pending WHERE expires_at <= ?", this.now());
    const open = this.sql.exec<{ nonce: string; sealed: string }>("SELECT nonce, sealed FROM account_mcp_pending WHERE thread_id = ? AND binding = ? AND expires_at > ?", request.threadId, binding, this.now() + 60_000).toArray()[0];
    if (open) {
      const pending = await vault.open<Pending>(open.sealed, pendingContext(request.userId, open.nonce)).catch(() => null);
      if (pending) return pending.authorizationUrl;
    }
    const added = await this.addedAs(request, binding);
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
    // The state names the user, the thread and this authorization; sealed, so none is read or swapped.
    const state = await vault.stateOf({ u: request.userId, t: request.threadId, n: nonce });
    const { url, codeVerifier } = await authorizationUrl(plan, client, redirectUri, state);
    const pending: Pending = { plan, client, codeVerifier, redirectUri, authorizationUrl: url, userId: request.userId, ...(request.userAdded ? { requireIss: true as const } : {}) };
    const sealed = await vault.seal(pending, pendingContext(request.userId, nonce));
    // Removed or replaced while discovery ran: checked in the same synchronous step as the insert.
    if (added !== undefined && this.userServer(request.server) !== added) throw notAdded(request.server);
    this.sql.exec(
      "INSERT INTO account_mcp_pending (nonce, thread_id, server, url, sealed, expires_at, binding) VALUES (?, ?, ?, ?, ?, ?, ?)",
      nonce,
      request.threadId,
      request.server,
      request.url,
      sealed,
      this.now() + AUTHORIZATION_TTL_MS,
      binding,
    );
    return url;
  }

  /**
   * Keeps `tokens` for the definition `binding`; returns when the access token expires (epoch ms),
   * null when the server said not, undefined when `claim` said no. `claim` runs in the same
   * synchronous step as the write, after every await: a revocation that came while the tokens were
   * fetched or sealed must win, or a revoked connection would come back.
   */
  private async store(vault: Vault, userId: string, binding: string, server: string, url: string, plan: OAuthPlan, client: OAuthClientInformationMixed, tokens: OAuthTokens, claim: () => boolean): Promise<number | null | undefined> {
    const stored: Stored = { plan, client, accessToken: tokens.access_token, ...(tokens.refresh_token ? { refreshToken: tokens.refresh_token } : {}) };
    const expiresAt = typeof tokens.expires_in === "number" ? this.now() + tokens.expires_in * 1000 : null;
    const sealed = await vault.seal(stored, tokenContext(userId, binding));
    if (!claim()) return undefined;
    this.sql.exec(
      "INSERT OR REPLACE INTO account_mcp_tokens (binding, server, url, sealed, expires_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
      binding,
      server,
      url,
      sealed,
      expiresAt,
      this.now(),
    );
    // A row kept from before bindings under this name and URL is replaced by this one.
    this.sql.exec("DELETE FROM account_mcp_tokens WHERE binding = ? AND server = ?", LEGACY_BINDING_PREFIX + url, server);
    return expiresAt;
  }

  /**
   * The redirect of a pending authorization came back with `code`, and a browser signed in to
   * weft as `by` hands it over: `state` (verified by the caller) must name this user, its thread
   * and an open authorization, used once it succeeded (a failed exchange leaves it open: the user
   * completes the same link again, within its 10 minutes). Only the user who started it completes it (RFC 6749
   * 10.12: the state is bound to that user's own credential, not to whoever holds the URL), so a
   * URL forwarded to someone else cannot link their account at the server to this user; a refusal
   * for that leaves the authorization open. Trades the code (with the PKCE verifier) for tokens,
   * keeps them, and wakes the thread, whose parked call then goes on. `iss` (RFC 9207) must be
   * the issuer the authorization went to, and is required when that server says it sends one or
   * the server is one the user added: else a code another server issued (the mix-up attack)
   * would be sent to this one's token endpoint.
   * @throws WeftError `mcp_wrong_user` (403) when `by` is not the state's user; `invalid_request`
   * for a state that names no open authorization here or one being completed now (path `state`),
   * an `iss` of another issuer (path `iss`), a code the authorization server refused (path
   * `code`); `mcp_unreachable` when it could not trade the code now.
   */
  async authorized(state: Record<string, string>, code: string, by: string, iss?: string): Promise<{ server: string; threadId: string }> {
    if (!state.u || by !== state.u) {
      throw new WeftError("mcp_wrong_user", "state: this authorization was started by another weft user; only that user, signed in to weft, can complete it (nothing was connected)", { path: ["state"] });
    }
    const nonce = state.n ?? "";
    const row = this.sql.exec<{ thread_id: string; server: string; url: string; sealed: string; expires_at: number; binding: string | null }>("SELECT * FROM account_mcp_pending WHERE nonce = ?", nonce).toArray()[0];
    const refused = () => new WeftError("invalid_request", "state: names no authorization under way (it expired, was used, or was never made)", { path: ["state"] });
    if (!row || row.binding === null || row.thread_id !== state.t || row.expires_at <= this.now() || !state.u) throw refused();
    if (this.completing.has(nonce)) throw new WeftError("invalid_request", "state: this authorization is being completed by another request now", { path: ["state"] });
    const binding = row.binding;
    const vault = await Vault.of(this.env);
    const pending = await vault.open<Pending>(row.sealed, pendingContext(state.u, nonce)).catch(() => null);
    if (!pending || pending.userId !== state.u) throw refused();
    const { issuer, authorization_response_iss_parameter_supported: issSent } = pending.plan.metadata as { issuer: string; authorization_response_iss_parameter_supported?: unknown };
    if (iss !== undefined ? iss !== issuer : issSent === true || pending.requireIss === true) {
      throw new WeftError("invalid_request", `iss: the authorization response names ${iss === undefined ? "no issuer" : quotedValue(iss)}, not ${issuer}, the authorization server asked (RFC 9207)`, { path: ["iss"] });
    }
    // One exchange at a time; the authorization is used up only once it succeeded.
    this.completing.add(nonce);
    let tokens: OAuthTokens;
    try {
      tokens = await exchangeCode(row.server, pending.plan, pending.client, code, pending.codeVerifier, pending.redirectUri);
    } finally {
      this.completing.delete(nonce);
    }
    // Revoked (the server removed or replaced) while the code was traded or the tokens sealed:
    // nothing is kept. Else the authorization is used up, and so are others of the same definition.
    const claim = () => {
      if (this.sql.exec("SELECT 1 FROM account_mcp_pending WHERE nonce = ?", nonce).toArray().length === 0) return false;
      this.sql.exec("DELETE FROM account_mcp_pending WHERE binding = ?", binding);
      return true;
    };
    if ((await this.store(vault, state.u, binding, row.server, row.url, pending.plan, pending.client, tokens, claim)) === undefined) throw refused();
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

  /** Whether tokens are kept for the definition (`server` named so, at `url`, with `auth`). */
  async has(server: string, url: string, auth: McpOAuthAuth): Promise<boolean> {
    return this.sql.exec("SELECT 1 FROM account_mcp_tokens WHERE binding = ?", await bindingOf(server, url, auth)).toArray().length > 0;
  }

  /** The user's connections, without their tokens. */
  list(): McpConnectionInfo[] {
    return this.sql
      .exec<{ server: string; url: string; expires_at: number | null; updated_at: number }>("SELECT server, url, expires_at, updated_at FROM account_mcp_tokens ORDER BY server, url")
      .toArray()
      .map((r) => ({ server: r.server, url: r.url, expiresAt: r.expires_at, updatedAt: r.updated_at }));
  }

  /**
   * Removes the tokens of every connection made under the name `server` (and its authorizations
   * under way); with `definition`, only the connection of that one definition (a server the user
   * removes, whose name a declared server may share).
   */
  async revoke(server: string, definition?: { url: string; auth: McpOAuthAuth }): Promise<{ deleted: boolean }> {
    const binding = definition ? await bindingOf(server, definition.url, definition.auth) : null;
    const where = binding === null ? "server = ?" : "binding = ?";
    const key = binding ?? server;
    const had = this.sql.exec(`SELECT 1 FROM account_mcp_tokens WHERE ${where}`, key).toArray().length > 0;
    this.sql.exec(`DELETE FROM account_mcp_tokens WHERE ${where}`, key);
    this.sql.exec(`DELETE FROM account_mcp_pending WHERE ${where}`, key);
    // A row of this name and URL kept from before bindings may be this definition's too.
    if (definition) this.sql.exec("DELETE FROM account_mcp_tokens WHERE binding = ? AND server = ?", LEGACY_BINDING_PREFIX + definition.url, server);
    return { deleted: had };
  }
}
