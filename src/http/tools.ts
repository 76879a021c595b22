/**
 * `GET /v1/tools` and `POST /v1/tools/:name`: direct tool calls without a model turn. Sessions
 * and continuation tokens belong to the caller; a call without one runs in a scratch thread.
 * @module
 */
import { Hono } from "hono";
import type { Registry } from "../run/agent.js";
import { ToolCatalog, configHash } from "../tools/catalog.js";
import type { AuthedEnv } from "./auth.js";
import { outcomeWaitsForPerson } from "../thread/direct.js";
import { runDirectCall } from "./direct-call.js";
import { idempotencyOf } from "./idempotency.js";
import { describe } from "./openapi.js";
import { DirectCallBody } from "./schemas.js";
import { jsonBody } from "./validate.js";

/** The `/v1/tools` routes over the registry's tools. */
export function toolRoutes(registry: Registry) {
  const app = new Hono<AuthedEnv>();
  const catalog = new ToolCatalog(registry.tools);
  let listing: Promise<{ tools: ReturnType<ToolCatalog["list"]>; configHash: string }> | null = null;

  app.get("/", describe("List every tool with its input and output JSON Schema, effect, and a configHash"), async (c) => {
    listing ??= (async () => {
      const tools = catalog.list();
      return { tools, configHash: await configHash(tools) };
    })();
    return c.json(await listing);
  });

  app.post("/:name", describe("Call a tool directly, with no model turn", { 200: "The outcome { ok, toolName, callId, isError, result, durationMs, ... }", 202: "The call waits for a person (approval, or a parked outcome)" }), jsonBody(DirectCallBody), async (c) => {
    // 200 for a result; 202 when the call waits for a person (approval or a parked outcome).
    const body = c.req.valid("json");
    const answer = await runDirectCall(c.env, c.var.caller, catalog, c.req.param("name"), body, await idempotencyOf(c, body));
    return c.json(answer, outcomeWaitsForPerson(answer) ? 202 : 200);
  });

  return app;
}
