/**
 * `POST /mcp`: the MCP server (Streamable HTTP) over the registry's tools. It sits behind the same
 * authentication as every route, and each `tools/call` is a direct call of the verified caller,
 * run by {@link runDirectCall} like `POST /v1/tools/:name`.
 * @module
 */
import { type Context, Hono } from "hono";
import { WeftError } from "../errors.js";
import { handleMcpRequest } from "../mcp/server.js";
import { mcpRefusal } from "./origins.js";
import type { Registry } from "../run/agent.js";
import { sha256Hex } from "../bytes.js";
import { ToolCatalog, type ToolListing, canonicalJson } from "../tools/catalog.js";
import { isZodSchema } from "../tools/schema.js";
import type { AuthedEnv } from "./auth.js";
import { runDirectCall } from "./direct-call.js";
import { describe, ok, refused } from "./openapi.js";
import * as R from "./responses.js";
import { checkJsonShape } from "../json-shape.js";
import { limitOf } from "../limits.js";

/** Version the MCP server reports in `initialize` (the package's). */
export const MCP_SERVER_VERSION = "0.1.0";

/**
 * A listing whose input schema is the author's JSON Schema as written: the model-facing listing
 * drops a 2020-12 `$schema` (src/tools/schema.ts), but an MCP client may read the declared draft.
 */
function asAuthored(catalog: ToolCatalog, listing: ToolListing): ToolListing {
  const args = catalog.definition(listing.name).args as Record<string, unknown> | undefined;
  if (!args || typeof args !== "object" || isZodSchema(args) || typeof args.$schema !== "string") return listing;
  return { ...listing, inputSchema: { $schema: args.$schema, ...listing.inputSchema } };
}

/** The `/mcp` route. */
export function mcpRoutes(registry: Registry) {
  const app = new Hono<AuthedEnv>();
  const catalog = new ToolCatalog(registry.tools);
  const serve = (c: Context<AuthedEnv>) => {
    const refusal = mcpRefusal(new URL(c.req.url), c.req.header("origin") ?? null, c.env);
    if (refusal !== null) {
      const error = new WeftError("origin_not_allowed", refusal);
      return error.toResponse();
    }
    return handleMcpRequest(
      c.req.raw,
      {
        tools: () => catalog.list().map((t) => asAuthored(catalog, t)),
        // An effect key is the call's Idempotency-Key: a repeat replays the first answer (EFFECT_KEY_META).
        call: async (name, input, session, effectKey) => {
          // The shape every other body is held to (nesting, lone surrogates): refused as the client's mistake.
          checkJsonShape(input, limitOf(c.env, "jsonDepth"), ["params", "arguments"]);
          return runDirectCall(c.env, c.var.caller, catalog, name, { input, ...session }, effectKey === undefined ? undefined : { key: `mcp:${effectKey}`, fingerprint: await sha256Hex(`MCP tools/call ${name}\n${canonicalJson(input ?? null)}`) });
        },
      },
      MCP_SERVER_VERSION,
    );
  };
  app.post(
    "/",
    describe("The MCP server (Streamable HTTP, stateless): JSON-RPC over POST", {
      200: ok("The JSON-RPC answer (a JSON-RPC error inside it keeps the protocol's shape)", R.McpAnswer),
      202: { description: "Accepted: the body held only notifications or answers" },
      ...refused(400, 403, 406, 413, 415),
    }),
    serve,
  );
  // Stateless: no server-initiated stream to open, no session to end.
  app.get("/", describe("Not offered: this MCP server is stateless (405, Allow: POST)", refused(405)), serve);
  app.delete("/", describe("Not offered: this MCP server has no sessions to end (405, Allow: POST)", refused(405)), serve);
  return app;
}
