/**
 * `GET /v1/tools` and `POST /v1/tools/:name`, the direct-call contract of the Agent SDK tools reference.
 * @module
 */
import { Hono } from "hono";
import * as z from "zod";
import { WeftError } from "../errors.js";
import type { Registry } from "../run/agent.js";
import type { WeftEnv } from "../thread/durable.js";
import { ToolCatalog, configHash } from "../tools/catalog.js";
import { readBody } from "./body.js";
import { type ThreadStub, threadStub, unwrap } from "./stubs.js";
import type { DirectCallOutcome } from "../thread/direct.js";

const DIRECT_CALL_FIELDS = {
  input: z.unknown().optional(),
  sessionId: z.string().min(1).optional(),
  continuationToken: z.string().optional(),
};

/**
 * Body of `POST /v1/tools/:name`: `sessionId` and `continuationToken` are mutually exclusive.
 * Any other top-level key is refused by name: it is almost always a tool argument that belongs
 * inside `input`.
 */
export const DirectCallBody = z
  .looseObject(DIRECT_CALL_FIELDS)
  .superRefine((body, ctx) => {
    for (const key of Object.keys(body)) {
      if (!Object.hasOwn(DIRECT_CALL_FIELDS, key)) ctx.addIssue({ code: "custom", path: [key], message: 'unknown field; did you mean {"input": {...}}?' });
    }
  });

const TOKEN = /^[^:]+:.+$/;

/** The `/v1/tools` routes over the registry's tools. */
export function toolRoutes(registry: Registry): Hono<{ Bindings: WeftEnv }> {
  const app = new Hono<{ Bindings: WeftEnv }>();
  const catalog = new ToolCatalog(registry.tools);
  let listing: Promise<{ tools: ReturnType<ToolCatalog["list"]>; configHash: string }> | null = null;

  app.get("/", async (c) => {
    listing ??= (async () => {
      const tools = catalog.list();
      return { tools, configHash: await configHash(tools) };
    })();
    return c.json(await listing);
  });

  app.post("/:name", async (c) => {
    // 200 for a result; 202 when the call waits for a person (approval or a parked outcome).
    const answer = (outcome: DirectCallOutcome) => c.json(outcome, outcome.status === "awaiting_approval" || outcome.status === "parked" ? 202 : 200);
    const name = c.req.param("name");
    const body = await readBody(c, DirectCallBody);
    if (body.sessionId !== undefined && body.continuationToken !== undefined) {
      throw new WeftError("invalid_continuation_token", "give sessionId or continuationToken, not both", { path: ["continuationToken"] });
    }
    if (body.continuationToken !== undefined && !TOKEN.test(body.continuationToken)) {
      throw new WeftError("invalid_continuation_token", "continuationToken: expected <channelId>:<key>", { path: ["continuationToken"] });
    }
    const call = { toolName: name, input: body.input ?? {} };
    if (body.sessionId !== undefined) {
      const stub = threadStub(c.env, body.sessionId, "session_not_found");
      const found = await stub.info();
      if (!found.ok) throw new WeftError("session_not_found", `no session ${JSON.stringify(body.sessionId)}`, { path: ["sessionId"] });
      return answer(unwrap(await stub.callTool(call)));
    }
    if (body.continuationToken !== undefined) {
      const stub = c.env.THREAD.get(c.env.THREAD.idFromName(`ct:${body.continuationToken}`)) as unknown as ThreadStub;
      if ((await stub.info()).ok) return answer(unwrap(await stub.callTool(call)));
    }
    // No session: an ephemeral thread that is removed when the call returns (the Agent SDK tools reference).
    catalog.get(name); // 404 unknown_tool before any thread is made
    const ns = c.env.THREAD;
    const id = ns.newUniqueId();
    const stub = ns.get(id) as unknown as ThreadStub;
    unwrap(
      await stub.create(
        { ephemeral: true, ...(body.continuationToken ? { arguments: { continuationToken: body.continuationToken } } : {}) },
        id.toString(),
      ),
    );
    let keep = false;
    try {
      const outcome = unwrap(await stub.callTool(call));
      // A call that waits for a person keeps its scratch thread, or nobody could approve it.
      keep = outcome.status === "awaiting_approval" || outcome.status === "parked";
      return c.json({ ...outcome, scratchWorkspace: true, ...(keep ? { sessionId: id.toString() } : {}) }, keep ? 202 : 200);
    } finally {
      if (!keep) await stub.destroy();
    }
  });

  return app;
}
