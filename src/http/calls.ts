/**
 * Call routes of a thread: list, read, approve, deny, settle, and the client's answer to a client
 * tool's call (`result`, a settlement of that parked call). Who approves, denies, settles or
 * answers is the verified caller (recorded as `approvedBy` / `decidedBy`), never a body field or header.
 * Decisions accept `Idempotency-Key`. Under `npm start` a record's `stack` is read in source terms
 * (source-stacks.ts).
 * @module
 */
import { unwrap } from "../rpc.js";
import { Hono } from "hono";
import type { AuthedEnv } from "./auth.js";
import { idempotencyOf } from "./idempotency.js";
import { describe, ok, refused } from "./openapi.js";
import * as R from "./responses.js";
import { withSourceStacks } from "./source-stacks.js";
import { AnswerBody, ApproveBody, CallsQuery, DenyBody, SettleBody } from "./schemas.js";
import { threadStub } from "./stubs.js";
import { jsonBody, query } from "./validate.js";

/** The `/threads/:id/calls` routes. */
export function callRoutes() {
  const app = new Hono<AuthedEnv>();

  app.get("/:id/calls", describe("List the thread's call records in creation order (?status= filters; ?limit= from 1 to 1000, default 1000, and at most 4 MiB of JSON a page; ?offset= pages on)", { 200: ok("The call records; hasMore says more follow", R.CallList), ...refused(400, 404) }), query(CallsQuery), async (c) => {
    const { status, limit, offset } = c.req.valid("query");
    const { calls, hasMore } = unwrap(await threadStub(c.env, c.req.param("id")).listCalls(c.var.caller, { ...(status ? { status } : {}), ...(limit ? { limit } : {}), ...(offset ? { offset } : {}) }));
    return c.json({ calls: await withSourceStacks(c.env, calls), hasMore });
  });

  app.get("/:id/calls/:callId", describe("Read one call record", { 200: ok("The call record", R.CallRecord), ...refused(404) }), async (c) => {
    const [call] = await withSourceStacks(c.env, [unwrap(await threadStub(c.env, c.req.param("id")).getCall(c.var.caller, c.req.param("callId")))]);
    return c.json(call!);
  });

  app.post("/:id/calls/:callId/approve", describe("Approve a call that waits for approval; it runs once", { 200: ok("How the call stands now", R.CallOutcome), ...refused(400, 404, 409, 413, 415, 422) }, { idempotencyKey: true }), jsonBody(ApproveBody), async (c) => {
    const body = c.req.valid("json");
    const idem = await idempotencyOf(c, body);
    return c.json(unwrap(await threadStub(c.env, c.req.param("id")).approve(c.var.caller, c.req.param("callId"), body.argsHash, idem)));
  });

  app.post("/:id/calls/:callId/deny", describe("Deny a call that waits for approval", { 200: ok("The denied call", R.CallOutcome), ...refused(400, 404, 409, 413, 415, 422) }, { idempotencyKey: true }), jsonBody(DenyBody), async (c) => {
    const body = c.req.valid("json");
    const idem = await idempotencyOf(c, body);
    return c.json(unwrap(await threadStub(c.env, c.req.param("id")).deny(c.var.caller, c.req.param("callId"), body.reason, idem)));
  });

  app.post("/:id/calls/:callId/settle", describe("Settle a parked call by hand", { 200: ok("How the call stands now", R.CallOutcome), ...refused(400, 404, 409, 413, 415, 422) }, { idempotencyKey: true }), jsonBody(SettleBody), async (c) => {
    const body = c.req.valid("json");
    const idem = await idempotencyOf(c, body);
    return c.json(unwrap(await threadStub(c.env, c.req.param("id")).settle(c.var.caller, c.req.param("callId"), body, idem)));
  });

  app.post("/:id/calls/:callId/result", describe("Answer a client tool's call (executionMode client) with its result or an error; its turn goes on", { 200: ok("How the call stands now", R.CallOutcome), ...refused(400, 404, 409, 413, 415, 422) }, { idempotencyKey: true }), jsonBody(AnswerBody), async (c) => {
    const body = c.req.valid("json");
    const idem = await idempotencyOf(c, body);
    const answer = body.error !== undefined ? { error: body.error } : { result: body.result };
    return c.json(unwrap(await threadStub(c.env, c.req.param("id")).settle(c.var.caller, c.req.param("callId"), { outcome: "answered", answer }, idem)));
  });

  return app;
}
