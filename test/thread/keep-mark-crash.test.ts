/**
 * A restart after a scratch thread's keep marked it counted and before the keep's listing reached
 * the account leaves it counted by its next alarm (found by hostile review 20c: the alarm took no
 * slot for a thread marked counted, so nothing counted it).
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect, it } from "vitest";
import { inThread, rawStub, stubOf } from "../helpers.js";

async function counted(userId: string): Promise<string[]> {
  const ns = (env as unknown as { ACCOUNT: DurableObjectNamespace }).ACCOUNT;
  const run = runInDurableObject as unknown as (stub: DurableObjectStub, cb: (instance: any) => string[]) => Promise<string[]>;
  return run(ns.get(ns.idFromName(userId)), (i) => (i.ctx.storage.sql as SqlStorage).exec<{ thread_id: string }>("SELECT thread_id FROM account_threads UNION ALL SELECT thread_id FROM account_unlisted").toArray().map((r) => r.thread_id));
}

it("a scratch thread cut between the keep's mark and its listing is counted by its alarm", async () => {
  const userId = `review20c-${crypto.randomUUID()}`;
  const ns = (env as unknown as { THREAD: DurableObjectNamespace }).THREAD;
  const threadId = ns.newUniqueId().toString();
  const caller = { userId, name: userId, roles: [], admin: false };
  expect((await stubOf(threadId).create(caller, { ephemeral: true }, threadId)).ok).toBe(true);
  await inThread(threadId, async (t) => {
    t.listing.listInAccount = async () => { await new Promise((r) => setTimeout(r, 20)); t.ctx.abort("restart during the listing RPC, which never reached the account"); };
    await t.listing.keepAsSession(true);
  }).catch(() => undefined);
  expect(await inThread(threadId, (t) => [t.world.meta.ephemeral, t.world.meta.counted ?? false])).toEqual([true, true]);
  await runDurableObjectAlarm(rawStub(threadId));
  // Alive (within its TTL), so counted against its owner's limit, as the alarm counts any scratch thread that outlived its call.
  expect(await inThread(threadId, (t) => t.world !== null)).toBe(true);
  expect(await counted(userId)).toEqual([threadId]);
});
