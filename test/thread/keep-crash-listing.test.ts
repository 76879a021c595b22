/**
 * A scratch thread's keep as a session marks it counted before it lists it, so a restart between the
 * listing and the keep's record leaves a thread whose DELETE unlists it (found by hostile review
 * 20b: the mark was in memory only, and the entry stayed for good, naming no thread, holding a slot).
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect, it } from "vitest";
import { inThread, request, stubOf } from "../helpers.js";
import { freshUser } from "../usage/users.js";


async function listedIds(userId: string): Promise<string[]> {
  const ns = (env as unknown as { ACCOUNT: DurableObjectNamespace }).ACCOUNT;
  const run = runInDurableObject as unknown as (stub: DurableObjectStub, cb: (instance: any) => string[]) => Promise<string[]>;
  return run(ns.get(ns.idFromName(userId)), (i) => (i.ctx.storage.sql as SqlStorage).exec<{ thread_id: string }>("SELECT thread_id FROM account_threads UNION ALL SELECT thread_id FROM account_unlisted").toArray().map((r) => r.thread_id));
}

it("a scratch thread whose keep listed it before a restart cut the keep is unlisted by its DELETE", async () => {
  const { userId, token } = await freshUser("keep-crash");
  const ns = (env as unknown as { THREAD: DurableObjectNamespace }).THREAD;
  const threadId = ns.newUniqueId().toString();
  const caller = { userId, name: userId, roles: [], admin: false };
  // Made as an unkeyed direct call makes its scratch thread.
  expect((await stubOf(threadId).create(caller, { ephemeral: true }, threadId)).ok).toBe(true);
  // The keep (its call waits for a person) lists it; the object restarts before the record is written.
  await inThread(threadId, async (t) => {
    // Its mark (written before the listing) goes in; the record after the listing does not.
    const write = t.listing.parts.writeMeta;
    let writes = 0;
    t.listing.parts.writeMeta = (meta: unknown) => (writes++ === 0 ? write(meta) : t.ctx.abort("restart between the keep's listing and its record"));
    await t.listing.keepAsSession(true);
  }).catch(() => undefined);
  expect(await listedIds(userId)).toEqual([threadId]);
  expect(await inThread(threadId, (t) => [t.world.meta.ephemeral, t.world.meta.counted ?? false])).toEqual([true, true]);

  // The user finds it in GET /threads and deletes it.
  const del = await request(`/threads/${threadId}`, { method: "DELETE", headers: { authorization: `Bearer ${token}` } }, null);
  expect(del.status).toBe(200);
  const again = await request(`/threads/${threadId}`, { method: "DELETE", headers: { authorization: `Bearer ${token}` } }, null);
  expect({ secondDelete: again.status, listed: await listedIds(userId) }).toEqual({ secondDelete: 404, listed: [] });
});
