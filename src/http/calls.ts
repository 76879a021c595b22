/**
 * Call routes of a thread: list, read, approve, deny, settle, and the thread's files (full
 * results that were capped for the model, and attachments).
 * @module
 */
import { Hono } from "hono";
import * as z from "zod";
import { WeftError } from "../errors.js";
import { CALL_STATUSES, type CallStatus } from "../protocol.js";
import type { WeftEnv } from "../thread/durable.js";
import { readBody } from "./body.js";
import { threadStub, unwrap } from "./stubs.js";


/** Body of `POST .../approve`; the identity defaults to the `x-weft-user` header. */
export const ApproveBody = z.object({ approvedBy: z.string().min(1).optional(), argsHash: z.string().optional() });

/** Body of `POST .../deny`. */
export const DenyBody = z.object({ deniedBy: z.string().min(1).optional(), reason: z.string().optional() });

/** Body of `POST .../settle`. */
export const SettleBody = z.discriminatedUnion("outcome", [
  z.object({ outcome: z.literal("succeeded"), result: z.string() }),
  z.object({ outcome: z.literal("failed"), error: z.string().min(1) }),
  z.object({ outcome: z.literal("retry") }),
]);

/** Who is acting: the body's name, else the `x-weft-user` header, else "anonymous". */
function actor(given: string | undefined, header: string | undefined): string {
  return given ?? header ?? "anonymous";
}

/** The `/threads/:id/calls` and `/threads/:id/files` routes. */
export function callRoutes(): Hono<{ Bindings: WeftEnv }> {
  const app = new Hono<{ Bindings: WeftEnv }>();

  app.get("/:id/calls", async (c) => {
    const status = c.req.query("status");
    if (status !== undefined && !(CALL_STATUSES as readonly string[]).includes(status)) {
      throw new WeftError("invalid_request", `status: expected one of ${CALL_STATUSES.join(", ")}`, { path: ["status"] });
    }
    const stub = threadStub(c.env, c.req.param("id"));
    return c.json(unwrap(await stub.listCalls(status ? { status: status as CallStatus } : {})));
  });

  app.get("/:id/calls/:callId", async (c) => c.json(unwrap(await threadStub(c.env, c.req.param("id")).getCall(c.req.param("callId")))));

  app.post("/:id/calls/:callId/approve", async (c) => {
    const body = await readBody(c, ApproveBody);
    const stub = threadStub(c.env, c.req.param("id"));
    return c.json(unwrap(await stub.approve(c.req.param("callId"), actor(body.approvedBy, c.req.header("x-weft-user")), body.argsHash)));
  });

  app.post("/:id/calls/:callId/deny", async (c) => {
    const body = await readBody(c, DenyBody);
    const stub = threadStub(c.env, c.req.param("id"));
    return c.json(unwrap(await stub.deny(c.req.param("callId"), actor(body.deniedBy, c.req.header("x-weft-user")), body.reason)));
  });

  app.post("/:id/calls/:callId/settle", async (c) => {
    const body = await readBody(c, SettleBody);
    return c.json(unwrap(await threadStub(c.env, c.req.param("id")).settle(c.req.param("callId"), body)));
  });

  app.get("/:id/files/*", async (c) => {
    // The raw URL, decoded once: stored paths hold percent-encoded call ids.
    const raw = new URL(c.req.url).pathname;
    const path = decodeURIComponent(raw.slice(raw.indexOf("/files/") + "/files/".length));
    const file = unwrap(await threadStub(c.env, c.req.param("id")).getFile(path));
    const text = file.mimeType.startsWith("text/") || file.mimeType.includes("json");
    const body = text ? file.data : Uint8Array.from(atob(file.data), (ch) => ch.charCodeAt(0));
    return new Response(body, { headers: { "content-type": file.mimeType, "content-length": String(file.size) } });
  });

  return app;
}
