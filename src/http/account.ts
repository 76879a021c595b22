/**
 * The caller's own account: env values at the user-account level of env resolution (between an
 * agent's defaults and the Worker's vars). Secret values are never shown back.
 * @module
 */
import { unwrap } from "../rpc.js";
import { Hono } from "hono";
import { WeftError } from "../errors.js";
import { MAX_ENV_NAME_CHARS, PAGE_SIZES, pageSize } from "../limits.js";
import { MCP_SERVER_NAME_PATTERN } from "../remote/define.js";
import type { AuthedEnv } from "./auth.js";
import { describe, ok, refused } from "./openapi.js";
import * as R from "./responses.js";
import { AccountEnvBody, AccountUsageQuery, BudgetsBody, WaitingQuery } from "./schemas.js";
import { accountStub } from "./stubs.js";
import { jsonBody, query } from "./validate.js";
import { WAITING_PER_THREAD, waitingPage } from "./waiting.js";

const NAME = new RegExp(`^[A-Za-z_][A-Za-z0-9_]{0,${MAX_ENV_NAME_CHARS - 1}}$`);

/** The `/account` routes. */
export function accountRoutes() {
  const app = new Hono<AuthedEnv>();

  const account = (c: { env: AuthedEnv["Bindings"]; var: AuthedEnv["Variables"] }) => {
    const stub = accountStub(c.env, c.var.caller);
    if (!stub) throw new WeftError("invalid_config", "user accounts need the ACCOUNT Durable Object binding");
    return stub;
  };
  const envName = (raw: string) => {
    if (!NAME.test(raw)) throw new WeftError("invalid_request", `name: expected ${NAME.source}`, { path: ["name"] });
    return raw;
  };

  app.get("/", describe("Who the caller is", { 200: ok("The verified caller", R.Account) }), (c) => c.json({ userId: c.var.caller.userId, name: c.var.caller.name, roles: c.var.caller.roles, admin: c.var.caller.admin } satisfies R.Body<typeof R.Account>));

  app.get("/env", describe("The caller's account env (secret values are never shown)", { 200: ok("Each value: text shown, secret by its type only", R.AccountEnv) }), async (c) => {
    const values = await account(c).envValues();
    const env = Object.fromEntries(Object.entries(values).map(([k, v]) => [k, v.type === "text" ? v : { type: v.type }]));
    return c.json({ env });
  });

  app.put("/env/:name", describe("Set an account env value", { 200: ok("The name and type set", R.AccountEnvSet), ...refused(400, 413, 415) }), jsonBody(AccountEnvBody), async (c) => {
    const name = envName(c.req.param("name"));
    const body = c.req.valid("json");
    unwrap(await account(c).setEnv(name, body.value, body.type ?? "secret"));
    return c.json({ name, type: body.type ?? "secret" } satisfies R.Body<typeof R.AccountEnvSet>);
  });

  app.delete("/env/:name", describe("Remove an account env value", { 200: ok("Whether there was such a value", R.Deleted), ...refused(400) }), async (c) => c.json(unwrap(await account(c).deleteEnv(envName(c.req.param("name"))))));

  // An admin too sees only their own threads here: no route lists another user's calls.
  app.get("/waiting", describe(`The calls that wait for the caller across their own threads: approvals to give, parked calls to settle, client tools' calls to answer (?limit= threads of the caller's index, newest first, from 1 to ${PAGE_SIZES.waiting.max}, default ${PAGE_SIZES.waiting.default}; ?cursor= pages on; at most ${WAITING_PER_THREAD} calls a thread, 4 MiB of JSON a page)`, { 200: ok("The waiting calls of a page of threads; nextCursor is null on the last", R.WaitingPage), ...refused(400) }), query(WaitingQuery), async (c) => {
    const q = c.req.valid("query");
    return c.json(await waitingPage(c.env, account(c), c.var.caller, { limit: pageSize("waiting", q.limit), ...(q.cursor ? { cursor: q.cursor } : {}) }));
  });

  // --- OAuth connections to remote MCP servers (src/account/mcp-connections.ts) ---
  app.get("/mcp-connections", describe("The caller's OAuth connections to MCP servers (tokens are never shown)", { 200: ok("Each connection: server, URL, token expiry", R.McpConnections) }), async (c) =>
    c.json({ connections: await account(c).mcpConnections() } satisfies R.Body<typeof R.McpConnections>),
  );

  app.delete("/mcp-connections/:server", describe("Revoke the caller's connection to an MCP server: its tokens are removed", { 200: ok("Whether there was such a connection", R.Deleted), ...refused(400) }), async (c) => {
    const server = c.req.param("server");
    if (!MCP_SERVER_NAME_PATTERN.test(server)) throw new WeftError("invalid_request", `server: expected ${MCP_SERVER_NAME_PATTERN.source}`, { path: ["server"] });
    return c.json(unwrap(await account(c).mcpRevoke(server)));
  });

  // --- usage and budgets (src/usage/) ---
  app.get("/usage", describe("The caller's usage over UTC days from..to: the total, and a page of groups by agent, model or day (?limit= from 1 to 1000, default 1000; ?cursor= pages on)", { 200: ok("The total over the range and a page of groups; nextCursor is null on the last", R.AccountUsage), ...refused(400) }), query(AccountUsageQuery), async (c) => c.json(unwrap(await account(c).usage(c.req.valid("query")))));

  app.get("/budgets", describe("The caller's own budgets", { 200: ok("The budgets set on the account", R.Budgets) }), async (c) => c.json({ budgets: await account(c).budgets() } satisfies R.Body<typeof R.Budgets>));

  app.put("/budgets", describe("Replace the caller's own budgets (tokens and cost ceilings on their threads)", { 200: ok("The budgets now set", R.Budgets), ...refused(400, 413, 415) }), jsonBody(BudgetsBody), async (c) => c.json({ budgets: unwrap(await account(c).setBudgets(c.req.valid("json").budgets)) } satisfies R.Body<typeof R.Budgets>));

  return app;
}
