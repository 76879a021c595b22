/**
 * `GET /mcp-oauth/callback`: where an MCP server's authorization server sends the user back
 * (the `redirect_uri` weft registers: `WEFT_PUBLIC_URL` + this path). It carries no weft
 * credential (it is a browser redirect): the `state` is what proves it, signed by the Worker
 * and naming the user, the thread and one authorization under way in that user's account,
 * which takes it once (src/account/mcp-connections.ts).
 * @module
 */
import { Hono } from "hono";
import { accountOf } from "../account/api.js";
import { Vault } from "../account/mcp-vault.js";
import { WeftError } from "../errors.js";
import { OAUTH_CALLBACK_PATH } from "../remote/oauth.js";
import type { AuthedEnv } from "./auth.js";
import { describe, ok, refused } from "./openapi.js";
import * as R from "./responses.js";
import { unwrap } from "./stubs.js";

/** The callback route (mounted before authentication). */
export function mcpOAuthRoutes() {
  const app = new Hono<AuthedEnv>();
  app.get(
    OAUTH_CALLBACK_PATH,
    describe("Where an MCP server's authorization server sends the user back (no credential: the signed state names the user and thread)", { 200: ok("The connection is made; the waiting call goes on", R.McpAuthorized), ...refused(400) }, { public: true }),
    async (c) => {
      const state = c.req.query("state");
      if (!state) throw new WeftError("invalid_request", "state: required", { path: ["state"] });
      const vault = await Vault.of(c.env as unknown as Record<string, unknown>);
      const payload = await vault.verify(state);
      if (!payload?.u || !payload.t || !payload.n) throw new WeftError("invalid_request", "state: not a state this Worker issued", { path: ["state"] });
      const error = c.req.query("error");
      if (error !== undefined) throw new WeftError("mcp_auth_required", `the authorization server answered ${JSON.stringify(error.slice(0, 100))}: the connection was not made`, { path: ["error"] });
      const code = c.req.query("code");
      if (!code || code.length > 4096) throw new WeftError("invalid_request", "code: required (at most 4096 characters)", { path: ["code"] });
      if (!c.env.ACCOUNT) throw new WeftError("capability_missing", "OAuth connections need the ACCOUNT Durable Object binding");
      const iss = c.req.query("iss");
      if (iss !== undefined && iss.length > 2048) throw new WeftError("invalid_request", "iss: at most 2048 characters", { path: ["iss"] });
      const done = unwrap(await accountOf(c.env.ACCOUNT, payload.u).mcpAuthorized(payload, code, iss));
      return c.json({ connected: true, server: done.server, threadId: done.threadId } satisfies R.Body<typeof R.McpAuthorized>);
    },
  );
  return app;
}
