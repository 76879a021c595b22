/**
 * A thread of `weft:schedules` (a file schedule without an `owner`) has no person who owns it, so
 * an admin decides there: approves, denies, settles, stops and deletes. Before, an admin could only
 * read it, and a call of its turn waiting for approval waited for good (new-user trial). Anyone
 * else still finds no such thread.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Caller } from "../../src/rpc.js";
import { FILE_SCHEDULE_OWNER } from "../../src/schedules/define.js";
import { json, stubOf } from "../helpers.js";

const SERVICE: Caller = { userId: FILE_SCHEDULE_OWNER, name: FILE_SCHEDULE_OWNER, roles: [], admin: false };

/** A thread of `weft:schedules` whose turn waits on an approval, as a scheduled turn would leave it. */
async function waitingServiceThread(): Promise<string> {
  const id = (env as unknown as { THREAD: DurableObjectNamespace }).THREAD.newUniqueId().toString();
  expect((await stubOf(id).create(SERVICE, { agent: "guarantees" }, id)).ok).toBe(true);
  const script = [{ toolCalls: [{ id: "pay", name: "needs_ok", arguments: { amount: 500 } }] }, { text: "paid" }];
  expect((await stubOf(id).postMessage(SERVICE, { content: "pay", script } as never)).ok).toBe(true);
  await stubOf(id).waitIdle();
  expect((await json("GET", `/threads/${id}/calls/pay`, undefined, "root")).body.status).toBe("awaiting_approval");
  return id;
}

describe("a thread no person owns (weft:schedules)", () => {
  it("an admin approves its waiting call and the turn goes on; another user finds no such thread", async () => {
    const id = await waitingServiceThread();
    expect((await json("POST", `/threads/${id}/calls/pay/approve`, {}, "alice")).body.error.code).toBe("thread_not_found");
    const approved = await json("POST", `/threads/${id}/calls/pay/approve`, {}, "root");
    expect([approved.status, approved.body.status]).toEqual([200, "succeeded"]);
    await stubOf(id).waitIdle();
    expect((await json("GET", `/threads/${id}`, undefined, "root")).body.lastTurn.status).toBe("completed");
  });

  it("an admin stops it and deletes it", async () => {
    const id = await waitingServiceThread();
    expect((await json("POST", `/threads/${id}/stop`, {}, "alice")).status).toBe(404);
    expect((await json("POST", `/threads/${id}/stop`, {}, "root")).status).toBe(200);
    expect((await json("DELETE", `/threads/${id}`, undefined, "alice")).status).toBe(404);
    expect((await json("DELETE", `/threads/${id}`, undefined, "root")).status).toBe(200);
    expect((await json("GET", `/threads/${id}`, undefined, "root")).status).toBe(404);
  });
});
