/**
 * `GET /v1/tools` and `POST /v1/tools/:name`: direct tool calls without a model turn. Sessions
 * and continuation tokens belong to the caller; a call without one runs in a scratch thread.
 * @module
 */
import { Hono } from "hono";
import { byteLength } from "../bytes.js";
import { WeftError } from "../errors.js";
import { limitOf } from "../limits.js";
import type { Registry } from "../run/agent.js";
import type { DirectCallOutcome } from "../thread/direct.js";
import { ToolCatalog, configHash } from "../tools/catalog.js";
import type { AuthedEnv } from "./auth.js";
import { idempotencyOf } from "./idempotency.js";
import { DirectCallBody } from "./schemas.js";
import { accountStub, keyedThread, newThread, threadStub, tokenThread, unwrap } from "./stubs.js";
import { jsonBody } from "./validate.js";

const TOKEN = /^[^:]+:.+$/;
const waits = (o: DirectCallOutcome) => o.status === "awaiting_approval" || o.status === "parked";

/** The `/v1/tools` routes over the registry's tools. */
export function toolRoutes(registry: Registry) {
  const app = new Hono<AuthedEnv>();
  const catalog = new ToolCatalog(registry.tools);
  let listing: Promise<{ tools: ReturnType<ToolCatalog["list"]>; configHash: string }> | null = null;

  app.get("/", async (c) => {
    listing ??= (async () => {
      const tools = catalog.list();
      return { tools, configHash: await configHash(tools) };
    })();
    return c.json(await listing);
  });

  app.post("/:name", jsonBody(DirectCallBody), async (c) => {
    // 200 for a result; 202 when the call waits for a person (approval or a parked outcome).
    const answer = (outcome: DirectCallOutcome) => c.json(outcome, waits(outcome) ? 202 : 200);
    const name = c.req.param("name");
    const body = c.req.valid("json");
    const caller = c.var.caller;
    if (body.sessionId !== undefined && body.continuationToken !== undefined) {
      throw new WeftError("invalid_continuation_token", "give sessionId or continuationToken, not both", { path: ["continuationToken"] });
    }
    if (body.continuationToken !== undefined && !TOKEN.test(body.continuationToken)) {
      throw new WeftError("invalid_continuation_token", "continuationToken: expected <channelId>:<key>", { path: ["continuationToken"] });
    }
    const max = limitOf(c.env, "toolInputBytes");
    const size = body.input === undefined ? 0 : byteLength(JSON.stringify(body.input));
    if (size > max) throw new WeftError("payload_too_large", `input: ${size} bytes, over the ${max}-byte limit of a tool input (WEFT_MAX_TOOL_INPUT_BYTES)`, { path: ["input"], limit: max });
    const call = { toolName: name, input: body.input ?? {} };
    const idem = await idempotencyOf(c, body);
    if (body.sessionId !== undefined) {
      const stub = threadStub(c.env, body.sessionId, "session_not_found");
      const result = await stub.callTool(caller, call, idem);
      // Another user's session, like a missing one, is not found.
      if (!result.ok && result.error.code === "thread_not_found") {
        throw new WeftError("session_not_found", `no session ${JSON.stringify(body.sessionId)}`, { path: ["sessionId"] });
      }
      return answer(unwrap(result));
    }
    if (body.continuationToken !== undefined) {
      const { stub } = tokenThread(c.env, caller, body.continuationToken);
      const result = await stub.callTool(caller, call, idem);
      if (result.ok || result.error.code !== "thread_not_found") return answer(unwrap(result));
    }
    // No session: a scratch thread, removed when the call returns, or by its own alarm if the
    // Worker dies first.
    catalog.get(name); // 404 unknown_tool before any thread is made
    // With a key the key names the scratch thread, which keeps the answer until its own alarm
    // removes it (SCRATCH_TTL_MS): a retry in that window replays instead of calling again.
    const { id, stub } = idem ? keyedThread(c.env, caller, "call", idem.key) : newThread(c.env);
    const threadId = id.toString();
    const created = await stub.create(caller, { ephemeral: true, ...(body.continuationToken ? { arguments: { continuationToken: body.continuationToken } } : {}) }, threadId);
    if (!idem || created.ok || created.error.code !== "thread_exists") unwrap(created);
    let keep = false;
    try {
      const outcome = unwrap(await stub.callTool(caller, call, idem));
      // A call that waits for a person keeps its scratch thread, or nobody could approve it.
      keep = waits(outcome);
      if (keep) {
        unwrap(await stub.keep(caller));
        await accountStub(c.env, caller)?.addThread({ threadId, agentId: "default", createdAt: Date.now() }, Number.MAX_SAFE_INTEGER);
      }
      return c.json({ ...outcome, scratchWorkspace: true, ...(keep ? { sessionId: threadId } : {}) }, keep ? 202 : 200);
    } finally {
      if (!keep && !idem) await stub.destroy(caller);
    }
  });

  return app;
}
