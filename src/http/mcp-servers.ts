/**
 * `/mcp-servers`: the MCP servers a user adds at run time, kept in their account
 * (src/account/mcp-servers.ts) and checked by the rules of a file under `agents/mcp/` and a few
 * of their own (src/remote/define.ts `checkUserMcpServer`). `GET /v1/tools` lists their tools
 * for that user only.
 * @module
 */
import { unwrap } from "../rpc.js";
import { Hono } from "hono";
import { WeftError } from "../errors.js";
import { MAX_USER_MCP_SERVERS, MCP_SERVER_NAME_PATTERN, checkUserMcpServer } from "../remote/define.js";
import { type Registry, findPrompt } from "../run/agent.js";
import type { AuthedEnv } from "./auth.js";
import { describe, ok, refused } from "./openapi.js";
import * as R from "./responses.js";
import { UserMcpServerBody } from "./schemas.js";
import { accountStub } from "./stubs.js";
import { jsonBody } from "./validate.js";

/** The `/mcp-servers` routes; `registry` names what a user's server may not be called. */
export function mcpServerRoutes(registry: Registry) {
  const app = new Hono<AuthedEnv>();
  const account = (c: { env: AuthedEnv["Bindings"]; var: AuthedEnv["Variables"] }) => {
    const stub = accountStub(c.env, c.var.caller);
    if (!stub) throw new WeftError("invalid_config", "user accounts need the ACCOUNT Durable Object binding");
    return stub;
  };

  app.get("/", describe("The MCP servers the caller added", { 200: ok("Each server: name, definition, when added", R.UserMcpServers) }), async (c) =>
    c.json({ servers: await account(c).userMcpServers() }),
  );

  app.post(
    "/",
    describe("Add (or replace) an MCP server for the caller: checked as a file under agents/mcp/ is, and offered to the caller only", { 200: ok("The server as kept", R.UserMcpServer), ...refused(400, 413, 415) }),
    jsonBody(UserMcpServerBody),
    async (c) => {
      const { name, ...options } = c.req.valid("json");
      if (!MCP_SERVER_NAME_PATTERN.test(name)) throw new WeftError("invalid_request", `name: expected ${MCP_SERVER_NAME_PATTERN.source}`, { path: ["name"] });
      const taken = Object.hasOwn(registry.mcpServers ?? {}, name) ? "a server in agents/mcp/" : Object.hasOwn(registry.tools, name) ? "a tool" : findPrompt(registry, name) ? "a prompt" : Object.hasOwn(registry.agents, name) ? "an agent" : null;
      if (taken) throw new WeftError("invalid_request", `name: "${name}" is already ${taken} of this deployment`, { path: ["name"] });
      const definition = checkUserMcpServer(name, options);
      return c.json(unwrap(await account(c).addUserMcpServer(name, definition, MAX_USER_MCP_SERVERS)));
    },
  );

  app.delete("/:name", describe("Remove an MCP server the caller added", { 200: ok("Whether there was such a server", R.Deleted), ...refused(400) }), async (c) => {
    const name = c.req.param("name");
    if (!MCP_SERVER_NAME_PATTERN.test(name)) throw new WeftError("invalid_request", `name: expected ${MCP_SERVER_NAME_PATTERN.source}`, { path: ["name"] });
    return c.json(unwrap(await account(c).removeUserMcpServer(name)));
  });

  return app;
}
