/**
 * A notice a thread sent its owner's account before the thread was deleted, delivered after the
 * removal unlisted it, changes nothing: the removal names the thread's lifetime (its `createdAt`)
 * and the account drops what names a removed one. Found by hostile reviews: a late schedule count
 * counted a deleted thread's schedule against the per-user limit for good, and a late listing
 * listed a deleted thread (DELETE then 404) holding a slot of the per-user thread limit.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect, it } from "vitest";
import { accountOf } from "../../src/account/api.js";
import { createThread, inThread, isListed, json, keyed } from "../helpers.js";
import { HOURLY, countHeldAcrossDelete, countedIn } from "../schedules/helpers.js";

/** The account's rows for `threadId`, listed and unlisted: the slots of the per-user limit it holds. */
function slotsOf(threadId: string): Promise<number> {
  const ns = (env as unknown as { ACCOUNT: DurableObjectNamespace }).ACCOUNT;
  const run = runInDurableObject as unknown as (stub: DurableObjectStub, cb: (a: { ctx: DurableObjectState }) => number) => Promise<number>;
  const sql = "SELECT (SELECT COUNT(*) FROM account_threads WHERE thread_id = ?1) + (SELECT COUNT(*) FROM account_unlisted WHERE thread_id = ?1) AS n";
  return run(ns.get(ns.idFromName("tester")), (a) => a.ctx.storage.sql.exec<{ n: number }>(sql, threadId).one().n);
}

const account = () => accountOf((env as unknown as { ACCOUNT: DurableObjectNamespace }).ACCOUNT, "tester");

it("a schedule count the account gets after the thread's removal counts nothing; the id's next thread counts its own", async () => {
  const { id, tag, made, straggler, release } = await countHeldAcrossDelete("late-count");
  // Sent now, after the removal unlisted the thread: the account gets the deleted thread's count of 1.
  await release();
  expect((await straggler).status).toBe(404);
  expect(await countedIn(id)).toBe(0);
  // The thread made again on the id counts its own schedules.
  expect((await made()).status).toBe(201);
  expect((await keyed("POST", `/threads/${id}/schedules`, `new-${tag}`, HOURLY)).status).toBe(201);
  expect(await countedIn(id)).toBe(1);
}, 90_000);

it("a listing the account gets after the thread's removal lists nothing and takes no slot", async () => {
  const id = await createThread({ agent: "guarantees" });
  const createdAt = await inThread(id, (t) => t.world!.meta.createdAt as number);
  expect(await json("DELETE", `/threads/${id}`)).toEqual({ status: 200, body: { deleted: true } });
  // What the thread sends to list itself (a kept scratch thread, a create's listing again), delivered late.
  const before = await account().listThreads({ limit: 200 });
  expect(await account().addThread({ threadId: id, agentId: "guarantees", createdAt }, 1_000_000)).toEqual({ ok: true, value: null });
  expect(await isListed(id)).toBe(false);
  expect(await account().listThreads({ limit: 200 })).toEqual(before);
  expect(await slotsOf(id)).toBe(0);
  // Another thread's listing, or this id's under another lifetime, is added as before.
  expect(await account().addThread({ threadId: id, agentId: "guarantees", createdAt: createdAt + 1 }, 1_000_000)).toEqual({ ok: true, value: null });
  expect(await isListed(id)).toBe(true);
  await account().removeThread(id, createdAt + 1);
});
