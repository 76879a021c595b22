/**
 * `GET /v1/tools` and `POST /v1/tools/:name`: direct tool calls without a model turn. Sessions
 * and continuation tokens belong to the caller; a call without one runs in a scratch thread.
 * @module
 */
import { Hono } from "hono";
import { integerSetting } from "../config.js";
import { listRemoteTools } from "../remote/tool-listing.js";
import { type Registry, findPrompt } from "../run/agent.js";
import { type ToolCatalog, configHash } from "../tools/catalog.js";
import type { AuthedEnv } from "./auth.js";
import { answerDirectCall } from "./direct-call.js";
import { idempotencyOf } from "./idempotency.js";
import { describe, ok, refused } from "./openapi.js";
import * as R from "./responses.js";
import { DirectCallBody } from "./schemas.js";
import { accountStub } from "./stubs.js";
import { jsonBody } from "./validate.js";

/**
 * The `/v1/tools` routes over the registry's tools. `GET` also lists, under `remote`, the tools
 * the registry's MCP servers and those the caller added (`POST /mcp-servers`) offer the caller
 * (src/remote/tool-listing.ts), beside the local ones: agents offer those, and `POST /v1/tools/:name` calls one only in a session of such an agent, and
 * `configHash` covers the local tools only.
 */
export function toolRoutes(catalog: ToolCatalog, registry?: Registry) {
  const app = new Hono<AuthedEnv>();
  let listing: Promise<{ tools: ReturnType<ToolCatalog["list"]>; configHash: string }> | null = null;
  const servers = registry?.mcpServers ?? {};
  const taken = (name: string) => !!registry && (Object.hasOwn(registry.tools, name) || findPrompt(registry, name) !== undefined || Object.hasOwn(registry.agents, name));

  app.get("/", describe("List every tool with its input and output JSON Schema, effect, and a configHash; and the tools of the MCP servers offered to the caller", { 200: ok("The tools", R.ToolList) }), async (c) => {
    listing ??= (async () => {
      const tools = catalog.list();
      return { tools, configHash: await configHash(tools) };
    })();
    // The servers the caller added (POST /mcp-servers), by name.
    const account = accountStub(c.env, c.var.caller);
    const own = account ? Object.fromEntries((await account.userMcpServers()).map((s) => [s.name, s.definition])) : {};
    if (Object.keys(servers).length === 0 && Object.keys(own).length === 0) return c.json(await listing);
    const [local, remote] = await Promise.all([
      listing,
      listRemoteTools({ servers, own, taken, env: c.env as unknown as Record<string, unknown>, userId: c.var.caller.userId, callTimeoutMs: integerSetting(c.env, "WEFT_CALL_TIMEOUT_MS", 1) }),
    ]);
    return c.json({ ...local, remote } satisfies R.Body<typeof R.ToolList>);
  });

  app.post("/:name", describe("Call a tool directly, with no model turn", { 200: ok("The outcome { ok, toolName, callId, isError, result, durationMs, ... }", R.DirectCallAnswer), 202: ok("The call waits for a person (approval, or a parked outcome)", R.DirectCallAnswer), ...refused(400, 404, 409, 413, 415, 422) }, { idempotencyKey: true }), jsonBody(DirectCallBody), async (c) => {
    const body = c.req.valid("json");
    const { answer, status } = await answerDirectCall(c.env, c.get("caller"), catalog, c.req.param("name"), body, await idempotencyOf(c, body));
    return c.json(answer, status);
  });

  return app;
}
