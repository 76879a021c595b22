/**
 * Thread routes: create, read, messages, calls, stop, and the WebSocket subscription.
 * @module
 */
import { Hono } from "hono";
import * as z from "zod";
import { WeftError } from "../errors.js";
import type { WeftEnv } from "../thread/durable.js";
import { readBody } from "./body.js";
import { type ThreadStub, threadStub, unwrap } from "./stubs.js";

const EnvValue = z.union([z.string(), z.object({ value: z.string(), type: z.enum(["text", "secret"]).optional() })]);

/** Body of `POST /threads`. */
export const CreateThreadBody = z.object({
  agent: z.string().min(1).optional(),
  arguments: z.record(z.string(), z.unknown()).optional(),
  userId: z.string().nullable().optional(),
  script: z.array(z.unknown()).optional(),
  env: z.record(z.string(), EnvValue).optional(),
  dryRun: z.boolean().optional(),
  asOf: z.iso.datetime({ offset: true }).optional(),
  continuationToken: z.string().regex(/^[^:]+:.+$/, "expected <channelId>:<key>").optional(),
});

/** Body of `POST /threads/:id/messages`. */
export const PostMessageBody = z.object({
  content: z.string(),
  role: z.enum(["user", "system"]).optional(),
  script: z.array(z.unknown()).optional(),
});

const intParam = (name: string, raw: string | undefined): number | undefined => {
  if (raw === undefined || raw === "") return undefined;
  const n = /^\d{1,15}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(n)) throw new WeftError("invalid_request", `${name}: expected an integer, got ${JSON.stringify(raw)}`, { path: [name] });
  return n;
};

/** The `/threads` routes. */
export function threadRoutes(): Hono<{ Bindings: WeftEnv }> {
  const app = new Hono<{ Bindings: WeftEnv }>();

  app.post("/", async (c) => {
    const body = await readBody(c, CreateThreadBody);
    const ns = c.env.THREAD;
    const id = body.continuationToken ? ns.idFromName(`ct:${body.continuationToken}`) : ns.newUniqueId();
    const stub = ns.get(id) as unknown as ThreadStub;
    const { continuationToken: _token, ...input } = body;
    const meta = unwrap(await stub.create(input, id.toString()));
    return c.json(meta, 201);
  });

  app.get("/:id", async (c) => c.json(unwrap(await threadStub(c.env, c.req.param("id")).info())));

  app.get("/:id/messages", async (c) => {
    const q = c.req.query();
    const order = q.order;
    if (order !== undefined && order !== "asc" && order !== "desc") {
      throw new WeftError("invalid_request", `order: expected "asc" or "desc", got ${JSON.stringify(order)}`, { path: ["order"] });
    }
    const options = {
      ...(intParam("limit", q.limit) !== undefined ? { limit: intParam("limit", q.limit)! } : {}),
      ...(intParam("offset", q.offset) !== undefined ? { offset: intParam("offset", q.offset)! } : {}),
      ...(intParam("maxDepth", q.maxDepth) !== undefined ? { maxDepth: intParam("maxDepth", q.maxDepth)! } : {}),
      ...(order ? { order: order as "asc" | "desc" } : {}),
      includeSilent: q.includeSilent === "true" || q.includeSilent === "1",
    };
    return c.json(unwrap(await threadStub(c.env, c.req.param("id")).getMessages(options)));
  });

  app.post("/:id/messages", async (c) => {
    const body = await readBody(c, PostMessageBody);
    const stub = threadStub(c.env, c.req.param("id"));
    return c.json(unwrap(await stub.postMessage(body)), 202);
  });

  app.post("/:id/stop", async (c) => c.json(unwrap(await threadStub(c.env, c.req.param("id")).stop())));

  app.get("/:id/ws", async (c) => {
    const stub = threadStub(c.env, c.req.param("id"));
    return stub.fetch(c.req.raw);
  });

  return app;
}
