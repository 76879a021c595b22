/**
 * The end of an MCP server's OAuth authorization, in two steps, so that it is bound to the weft
 * user who started it and not to whoever holds the URL (RFC 6749 10.12; OAuth 2.1 draft: bind the
 * state to the user agent's authenticated session):
 *
 * - `GET /mcp-oauth/callback` (the `redirect_uri` weft registers: `WEFT_PUBLIC_URL` + this path)
 *   takes no weft credential, since it is a browser redirect. It checks the sealed `state` and
 *   answers a page (src/http/mcp-oauth-page.ts) naming the user the authorization is for; it
 *   exchanges nothing.
 * - `POST /mcp-oauth/complete` (authenticated like every other route) takes the state and code
 *   from that page with the browser's weft credential. Only the state's own user completes it
 *   (else 403 `mcp_wrong_user`, and the authorization stays open for them); the account takes
 *   the state once its code was traded (src/account/mcp-connections.ts; a failed exchange leaves it open).
 * @module
 */
import { unwrap } from "../rpc.js";
import { Hono } from "hono";
import { accountOf } from "../account/api.js";
import { Vault } from "../account/mcp-vault.js";
import { WeftError, quotedValue } from "../errors.js";
import { OAUTH_CALLBACK_PATH } from "../remote/oauth.js";
import type { AuthedEnv } from "./auth.js";
import { OAUTH_COMPLETE_PATH, callbackPage } from "./mcp-oauth-page.js";
import { describe, ok, refused } from "./openapi.js";
import * as R from "./responses.js";
import { McpAuthorizationBody } from "./schemas.js";
import { jsonBody } from "./validate.js";

/** The verified payload of `state` (user `u`, thread `t`, authorization `n`). @throws WeftError `invalid_request` (path `state`) for anything else. */
async function verifiedState(env: AuthedEnv["Bindings"], state: string | undefined): Promise<Record<string, string>> {
  if (!state) throw new WeftError("invalid_request", "state: required", { path: ["state"] });
  const payload = await (await Vault.of(env as unknown as Record<string, unknown>)).readState(state);
  if (!payload?.u || !payload.t || !payload.n) throw new WeftError("invalid_request", "state: not a state this Worker issued", { path: ["state"] });
  return payload;
}

/**
 * Refuses a redirect back whose query an attacker shaped. weft's redirect URI has no query, so
 * every parameter is the authorization server's, added once each after what the registered URI
 * held. A mix-up attacker who registered weft's URI with `?iss=<its own issuer>` at an honest
 * server (RFC 9700 4.4) gets its `iss` there before the honest `code`, or beside the honest `iss`:
 * a repeated `code`, `state`, `iss` or `error`, or an `iss` before `code`, is refused before the
 * page that exchanges the code is served.
 * @throws WeftError `invalid_request` naming the parameter.
 */
function checkRedirectQuery(query: URLSearchParams): void {
  const names = [...query.keys()];
  for (const name of ["code", "state", "iss", "error"]) {
    if (query.getAll(name).length > 1) throw new WeftError("invalid_request", `${name}: given more than once: the redirect back was altered, so the connection was not made`, { path: [name] });
  }
  if (query.has("iss") && query.has("code") && names.indexOf("iss") < names.indexOf("code")) {
    throw new WeftError("invalid_request", "iss: comes before code, so it was not added by the authorization server: the connection was not made", { path: ["iss"] });
  }
}

/** The redirect back (mounted before authentication: a browser coming back carries no weft credential). */
export function mcpOAuthRoutes() {
  const app = new Hono<AuthedEnv>();
  app.get(
    OAUTH_CALLBACK_PATH,
    describe(
      "Where an MCP server's authorization server sends the user back (no credential). Exchanges nothing: answers a page (naming no one) which completes through POST /mcp-oauth/complete with that user's credential",
      { 200: { description: "The page that completes the connection in a browser signed in as the state's user", media: ["text/html"] }, ...refused(400) },
      { public: true },
    ),
    async (c) => {
      // Whatever the answer, it holds a code: never cached, never sent on as a referrer.
      c.header("cache-control", "no-store");
      c.header("referrer-policy", "no-referrer");
      checkRedirectQuery(new URL(c.req.url).searchParams);
      await verifiedState(c.env, c.req.query("state"));
      const error = c.req.query("error");
      if (error !== undefined) throw new WeftError("mcp_auth_required", `the authorization server answered ${quotedValue(error)}: the connection was not made`, { path: ["error"] });
      const code = c.req.query("code");
      if (!code || code.length > 4096) throw new WeftError("invalid_request", "code: required (at most 4096 characters)", { path: ["code"] });
      const iss = c.req.query("iss");
      if (iss !== undefined && iss.length > 2048) throw new WeftError("invalid_request", "iss: at most 2048 characters", { path: ["iss"] });
      return callbackPage();
    },
  );
  return app;
}

/** The completion (mounted after authentication: the caller is the browser's verified weft user). */
export function mcpOAuthCompletionRoutes() {
  const app = new Hono<AuthedEnv>();
  app.post(
    OAUTH_COMPLETE_PATH,
    describe(
      "Complete an MCP server's OAuth authorization with the state and code of its redirect back: only the weft user who started it can (the code is exchanged, the tokens kept, the waiting call goes on)",
      { 200: ok("The connection is made; the waiting call goes on", R.McpAuthorized), ...refused(400, 403, 413, 415, 502) },
    ),
    jsonBody(McpAuthorizationBody),
    async (c) => {
      c.header("cache-control", "no-store");
      const body = c.req.valid("json");
      const payload = await verifiedState(c.env, body.state);
      if (!c.env.ACCOUNT) throw new WeftError("capability_missing", "OAuth connections need the ACCOUNT Durable Object binding");
      const done = unwrap(await accountOf(c.env.ACCOUNT, payload.u!).mcpAuthorized(payload, body.code, c.var.caller.userId, body.iss));
      return c.json({ connected: true, server: done.server, threadId: done.threadId } satisfies R.Body<typeof R.McpAuthorized>);
    },
  );
  return app;
}
