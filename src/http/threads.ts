/**
 * Thread routes: list, create, read, messages, stop, and the WebSocket subscription. The owner of
 * a new thread is the verified caller; every other route answers only its owner (reads: admins too).
 * @module
 */
import { unwrap } from "../rpc.js";
import { Hono } from "hono";
import { WeftError } from "../errors.js";
import { limitOf, pageSize } from "../limits.js";
import { claimThread } from "../account/api.js";
import { type Registry, agentToRun } from "../run/agent.js";
import { checkContentSize } from "../thread/store/messages.js";
import { storedContent } from "../content/parts.js";
import type { AuthedEnv } from "./auth.js";
import { idempotencyOf } from "./idempotency.js";
import { describe, ok, refused } from "./openapi.js";
import * as R from "./responses.js";
import { CreateThreadBody, MessagesQuery, PostMessageBody, ThreadsQuery, WsQuery } from "./schemas.js";
import { selectingWeft, selectsWeft, threadUpgrade } from "./socket-upgrade.js";
import { accountStub, keyedThread, newThread, threadStub, tokenThread } from "./stubs.js";
import { jsonBody, query } from "./validate.js";

/** The `/threads` routes. */
export function threadRoutes(registry: Registry) {
  const app = new Hono<AuthedEnv>();

  app.get("/", describe("List your threads, newest first (cursor pages)", { 200: ok("A page of threads; nextCursor is null on the last", R.ThreadPage), ...refused(400) }), query(ThreadsQuery), async (c) => {
    const q = c.req.valid("query");
    const account = accountStub(c.env, c.var.caller);
    if (!account) throw new WeftError("invalid_config", "listing threads needs the ACCOUNT Durable Object binding");
    return c.json(unwrap(await account.listThreads({ limit: pageSize("threads", q.limit), ...(q.cursor ? { cursor: q.cursor } : {}) })));
  });

  app.post("/", describe("Create a thread", { 201: ok("The thread's record, with threadId", R.ThreadMeta), ...refused(400, 404, 409, 413, 415, 422) }, { idempotencyKey: true }), jsonBody(CreateThreadBody), async (c) => {
    const body = c.req.valid("json");
    const { continuationToken, ...input } = body;
    const caller = c.var.caller;
    const idem = await idempotencyOf(c, body);
    // With a key and no token, the key names the thread: a retry reaches the same one.
    const { id, stub } = continuationToken
      ? tokenThread(c.env, caller, continuationToken)
      : idem
        ? keyedThread(c.env, caller, "thread", idem.key)
        : newThread(c.env);
    const threadId = id.toString();
    const account = accountStub(c.env, caller);
    // No entry for an agent that is not there (its id, as the user wrote it, would be stored).
    const { agentId } = agentToRun(registry, input.agent);
    // The index entry first, so the per-user limit holds even for concurrent creates.
    if (account) unwrap(await claimThread(account, c.env, { threadId, agentId, createdAt: Date.now() }));
    // A create that makes no thread takes the entry back itself (the thread object knows whether one is there).
    return c.json(unwrap(await stub.create(caller, input, threadId, idem)), 201);
  });

  app.get("/:id", describe("Read a thread: status, messageCount, lastSeq, lastTurn", { 200: ok("The thread", R.ThreadInfo), ...refused(404) }), async (c) => c.json(unwrap(await threadStub(c.env, c.req.param("id")).info(c.var.caller))));

  app.get("/:id/messages", describe("Read a thread's messages, a page at a time", { 200: ok("A page of messages", R.MessagePage), ...refused(400, 404) }), query(MessagesQuery), async (c) => {
    const q = c.req.valid("query");
    const options = {
      ...(q.limit !== undefined ? { limit: q.limit } : {}),
      ...(q.offset !== undefined ? { offset: q.offset } : {}),
      ...(q.order ? { order: q.order } : {}),
      ...(q.maxDepth !== undefined ? { maxDepth: q.maxDepth } : {}),
      ...(q.before !== undefined ? { before: q.before } : {}),
      ...(q.after !== undefined ? { after: q.after } : {}),
      includeSilent: q.includeSilent === "true" || q.includeSilent === "1",
    };
    return c.json(unwrap(await threadStub(c.env, c.req.param("id")).getMessages(c.var.caller, options)));
  });

  app.get("/:id/usage", describe("Read a thread's usage: tokens, cost and time per turn and model, tool calls' time and attempts", { 200: ok("The thread's usage ledger, rolled up", R.ThreadUsage), ...refused(404) }), async (c) => c.json(unwrap(await threadStub(c.env, c.req.param("id")).usage(c.var.caller))));

  app.post("/:id/messages", describe("Post a message; starts a turn or queues behind one", { 202: ok("Queued behind a turn, or stored (message) with its turn started", R.PostedMessage), ...refused(400, 404, 413, 415, 422) }, { idempotencyKey: true }), jsonBody(PostMessageBody), async (c) => {
    const body = c.req.valid("json");
    if (typeof body.content === "string") checkContentSize(body.content, ["content"], limitOf(c.env, "messageBytes"), "WEFT_MAX_MESSAGE_BYTES");
    else storedContent(body.content, body.role ?? "user", limitOf(c.env, "messageBytes"), "WEFT_MAX_MESSAGE_BYTES");
    const idem = await idempotencyOf(c, body);
    // A W3C traceparent makes the turn's trace part of the caller's (checked where it is used).
    const traceparent = c.req.header("traceparent");
    return c.json(unwrap(await threadStub(c.env, c.req.param("id")).postMessage(c.var.caller, { ...body, ...(traceparent ? { traceparent } : {}) }, idem)), 202);
  });

  // Removes the thread and (the thread does it, before its rows go) its index entry, so it stops counting against the per-user limit.
  app.delete("/:id", describe("Delete a thread and everything it holds", { 200: ok("Deleted", R.ThreadDeleted), ...refused(404) }), async (c) => {
    unwrap(await threadStub(c.env, c.req.param("id")).destroy(c.var.caller));
    return c.json({ deleted: true } satisfies R.Body<typeof R.ThreadDeleted>);
  });

  app.post("/:id/stop", describe("Stop the turn, running or waiting for a person", { 200: ok("Whether a turn was stopped", R.Stopped), ...refused(404) }), async (c) => c.json(unwrap(await threadStub(c.env, c.req.param("id")).stop(c.var.caller))));

  app.get("/:id/ws", describe("Subscribe to the thread's events: WebSocket upgrade, replaying frames after ?since=<seq>; ?batch=1 sends JSON arrays of frames", { 101: { description: "Switching Protocols: frames { seq, type, data, at }" }, ...refused(400, 404, 426, 429) }), query(WsQuery), async (c) => {
    const selects = selectsWeft(c.req.raw);
    // The thread checks the caller before it accepts: a refused upgrade is a plain 401/404.
    const res = await threadStub(c.env, c.req.param("id")).fetch(threadUpgrade(c.req.raw, c.var.caller));
    return selects ? selectingWeft(res) : res;
  });

  return app;
}
