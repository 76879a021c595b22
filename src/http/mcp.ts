/**
 * `POST /mcp`: the MCP server (Streamable HTTP) over the registry's tools. It sits behind the same
 * authentication as every route, and each `tools/call` is a direct call of the verified caller,
 * run by {@link runDirectCall} like `POST /v1/tools/:name`.
 * @module
 */
import { Hono } from "hono";
import { handleMcpRequest } from "../mcp/server.js";
import type { Registry } from "../run/agent.js";
import { ToolCatalog } from "../tools/catalog.js";
import type { AuthedEnv } from "./auth.js";
import { runDirectCall } from "./direct-call.js";
import { describe } from "./openapi.js";

/** Version the MCP server reports in `initialize` (the package's). */
export const MCP_SERVER_VERSION = "0.1.0";

/** The `/mcp` route. */
export function mcpRoutes(registry: Registry) {
  const app = new Hono<AuthedEnv>();
  const catalog = new ToolCatalog(registry.tools);
  app.on(["GET", "POST", "DELETE"], "/", describe("The MCP server (Streamable HTTP, stateless): JSON-RPC over POST; GET and DELETE answer 405"), (c) =>
    handleMcpRequest(
      c.req.raw,
      {
        tools: () => catalog.list(),
        call: (name, input, session) => runDirectCall(c.env, c.var.caller, catalog, name, { input, ...session }),
      },
      MCP_SERVER_VERSION,
    ),
  );
  return app;
}
