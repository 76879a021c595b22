/**
 * The per-user thread limit on every path: a create, a direct call's scratch thread kept for a
 * call that waits for its approval or for its Idempotency-Key, and an agent's child thread are
 * each counted against the owner's limit (`WEFT_MAX_THREADS_PER_USER`, default 1000) and refused
 * at it, as a create is.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { claimThread } from "../../src/account/api.js";
import { LIMITS } from "../../src/limits.js";
import { SCRATCH_TTL_MS } from "../../src/thread/guard.js";
import { inThread, rawStub, request, stubOf } from "../helpers.js";
import { freshUser } from "../usage/users.js";

const LIMIT = LIMITS.threadsPerUser.default;

async function send(token: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const res = await request(
    path,
    { method, headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...headers }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) },
    null,
  );
  return { status: res.status, body: await res.json() };
}

const accountStubOf = (userId: string) => {
  const ns = (env as unknown as { ACCOUNT: DurableObjectNamespace }).ACCOUNT;
  return ns.get(ns.idFromName(userId));
};

/** Lists entries naming no thread in the user's account until it holds `total` (no thread is made). */
async function fillAccount(userId: string, total: number): Promise<void> {
  const run = runInDurableObject as unknown as (stub: DurableObjectStub, cb: (instance: any) => void) => Promise<void>;
  await run(accountStubOf(userId), (instance) => {
    const sql = instance.ctx.storage.sql as SqlStorage;
    const have = sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM account_threads").one().n;
    for (let i = have; i < total; i++) sql.exec("INSERT INTO account_threads (thread_id, agent_id, created_at) VALUES (?, 'filler', ?)", `e${i.toString(16).padStart(63, "0")}`, i);
  });
}

async function listedCount(userId: string): Promise<number> {
  const run = runInDurableObject as unknown as (stub: DurableObjectStub, cb: (instance: any) => number) => Promise<number>;
  return run(accountStubOf(userId), (instance) => (instance.ctx.storage.sql as SqlStorage).exec<{ n: number }>("SELECT COUNT(*) AS n FROM account_threads").one().n);
}

/** Every thread the user's account counts against the limit, listed or not (as `addThread` counts them). */
async function countedCount(userId: string): Promise<number> {
  const run = runInDurableObject as unknown as (stub: DurableObjectStub, cb: (instance: any) => number) => Promise<number>;
  const query = "SELECT (SELECT COUNT(*) FROM account_threads) + (SELECT COUNT(*) FROM account_unlisted) AS n";
  return run(accountStubOf(userId), (instance) => (instance.ctx.storage.sql as SqlStorage).exec<{ n: number }>(query).one().n);
}

/** The scratch thread an `Idempotency-Key` names for a direct call of `userId` (as the Worker names it). */
function keyedScratchId(userId: string, key: string): string {
  const ns = (env as unknown as { THREAD: DurableObjectNamespace }).THREAD;
  return ns.idFromName(`idem:${JSON.stringify(["call", userId, key])}`).toString();
}

const tablesOf = (threadId: string) => inThread(threadId, (instance) => instance.ctx.storage.sql.exec("SELECT name FROM sqlite_master WHERE type = 'table'").toArray().length);

describe("the per-user thread limit", () => {
  it("refuses a create, a kept scratch thread and a child thread alike at the limit; nothing is listed past it", async () => {
    const { userId, token } = await freshUser("limit");
    const parent = await send(token, "POST", "/threads", { agent: "delegator" });
    expect(parent.status).toBe(201);
    await fillAccount(userId, LIMIT);
    expect(await listedCount(userId)).toBe(LIMIT);

    // 1. A create.
    const create = await send(token, "POST", "/threads", {});
    expect([create.status, create.body.error.code]).toEqual([429, "too_many_threads"]);

    // 2. A direct call of a tool that needs approval: its scratch thread would be kept and listed.
    const direct = await send(token, "POST", "/v1/tools/dated", { input: { when: "2026-01-01T00:00:00Z" } });
    expect([direct.status, direct.body.error?.code]).toEqual([429, "too_many_threads"]);
    expect(direct.body.error.message).toMatch(`the limit is ${LIMIT} threads per user`);
    expect(await listedCount(userId)).toBe(LIMIT);

    // 3. A child thread of an agent called as a tool: the call gets an error result, no child is made.
    const posted = await send(token, "POST", `/threads/${parent.body.threadId}/messages`, {
      content: "find it",
      script: [{ toolCalls: [{ id: "r1", name: "researcher", arguments: { input: "6x7?" } }] }, { text: "could not" }],
    });
    expect(posted.status).toBe(202);
    await stubOf(parent.body.threadId).waitIdle();
    const calls = await inThread(parent.body.threadId, (instance) => [...instance.store.calls.list(10, 0)]);
    expect(calls).toHaveLength(1);
    expect(calls[0].result).toMatchObject({ status: "error" });
    expect(calls[0].result.error).toMatch(/too_many_threads: .*the limit is 1000 threads per user/);
    expect(await listedCount(userId)).toBe(LIMIT);

    // 4. The listing holds exactly the limit, and a freed slot lets each path in again.
    const page = await send(token, "GET", "/threads?limit=200");
    expect(page.status).toBe(200);
    const run = runInDurableObject as unknown as (stub: DurableObjectStub, cb: (instance: any) => void) => Promise<void>;
    await run(accountStubOf(userId), (instance) => instance.ctx.storage.sql.exec("DELETE FROM account_threads WHERE thread_id = (SELECT thread_id FROM account_threads WHERE agent_id = 'filler' LIMIT 1)"));
    const kept = await send(token, "POST", "/v1/tools/dated", { input: { when: "2026-01-01T00:00:00Z" } });
    expect([kept.status, kept.body.status]).toEqual([202, "awaiting_approval"]);
    expect(await listedCount(userId)).toBe(LIMIT);
    const after = await send(token, "POST", "/threads", {});
    expect([after.status, after.body.error?.code]).toEqual([429, "too_many_threads"]);
  });

  it("counts the scratch thread an Idempotency-Key keeps for a direct call: refused at the limit, unlisted, freed by its alarm", async () => {
    const { userId, token } = await freshUser("limit");
    await fillAccount(userId, LIMIT);
    const note = "n".repeat(50_000);
    const call = (key: string) => send(token, "POST", "/v1/tools/record_call", { input: { note } }, { "idempotency-key": key });

    // At the limit: refused as a create is, nothing ran and no thread is kept for the key.
    const refused = await call("full-1");
    expect([refused.status, refused.body.error?.code]).toEqual([429, "too_many_threads"]);
    expect(refused.body.error.message).toMatch(`the limit is ${LIMIT} threads per user`);
    expect(await tablesOf(keyedScratchId(userId, "full-1"))).toBe(0);
    expect(await countedCount(userId)).toBe(LIMIT);

    // One slot free: the call runs and its kept scratch thread takes the slot.
    const run = runInDurableObject as unknown as (stub: DurableObjectStub, cb: (instance: any) => void) => Promise<void>;
    await run(accountStubOf(userId), (instance) => instance.ctx.storage.sql.exec("DELETE FROM account_threads WHERE thread_id = (SELECT thread_id FROM account_threads WHERE agent_id = 'filler' LIMIT 1)"));
    const ran = await call("free-1");
    expect([ran.status, ran.body.ok, ran.body.scratchWorkspace]).toEqual([200, true, true]);
    const scratchId = keyedScratchId(userId, "free-1");
    expect(await tablesOf(scratchId)).toBeGreaterThan(0);
    expect(await countedCount(userId)).toBe(LIMIT);
    const create = await send(token, "POST", "/threads", {});
    expect([create.status, create.body.error?.code]).toEqual([429, "too_many_threads"]);
    const another = await call("full-2");
    expect([another.status, another.body.error?.code]).toEqual([429, "too_many_threads"]);
    // Not a conversation the user made: counted, never listed.
    expect(await listedCount(userId)).toBe(LIMIT - 1);
    let cursor: string | null = null;
    const listed: string[] = [];
    do {
      const page = await send(token, "GET", `/threads?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      listed.push(...page.body.threads.map((t: { threadId: string }) => t.threadId));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(listed).toHaveLength(LIMIT - 1);
    expect(listed).not.toContain(scratchId);
    // A repeat of the key (at the limit) replays the first answer and takes no second slot.
    const again = await call("free-1");
    expect([again.status, again.body.callId]).toEqual([200, ran.body.callId]);
    expect(await countedCount(userId)).toBe(LIMIT);

    // Its own alarm removes it past the scratch TTL, and the slot is free again.
    await inThread(scratchId, (instance) => {
      instance.world.meta.createdAt -= SCRATCH_TTL_MS + 1;
      instance.store.meta.write(instance.world.meta);
    });
    expect(await runDurableObjectAlarm(rawStub(scratchId))).toBe(true);
    expect(await tablesOf(scratchId)).toBe(0);
    expect(await countedCount(userId)).toBe(LIMIT - 1);
    const after = await send(token, "POST", "/threads", {});
    expect(after.status).toBe(201);
  });

  it("counts a keyed scratch call that ends in an error, and lists one that waits for approval in the slot it holds", async () => {
    const { userId, token } = await freshUser("limit");
    await fillAccount(userId, LIMIT - 2);
    const keyed = (key: string, input: unknown) => send(token, "POST", "/v1/tools/dated", { input }, { "idempotency-key": key });

    // A refused input is kept too (a repeat of the key replays the refusal), so it takes a slot.
    const bad = await keyed("bad-1", { when: "not a date" });
    expect([bad.status, bad.body.error?.code]).toEqual([400, "invalid_tool_input"]);
    expect([await countedCount(userId), await listedCount(userId)]).toEqual([LIMIT - 1, LIMIT - 2]);

    // A call that waits for approval: counted before it ran, then listed in that same slot.
    const waits = await keyed("wait-1", { when: "2026-01-01T00:00:00Z" });
    expect([waits.status, waits.body.status]).toEqual([202, "awaiting_approval"]);
    expect(waits.body.sessionId).toBe(keyedScratchId(userId, "wait-1"));
    expect([await countedCount(userId), await listedCount(userId)]).toEqual([LIMIT, LIMIT - 1]);
    const create = await send(token, "POST", "/threads", {});
    expect([create.status, create.body.error?.code]).toEqual([429, "too_many_threads"]);

    // Deleting the session frees its slot; the error's scratch thread still holds its own.
    expect((await send(token, "DELETE", `/threads/${waits.body.sessionId}`)).status).toBe(200);
    expect([await countedCount(userId), await listedCount(userId)]).toEqual([LIMIT - 1, LIMIT - 2]);
  });

  it("counts a scratch thread without a key that outlived its call (a restart cut it) from its first alarm, and frees it at its removal", async () => {
    const { userId } = await freshUser("limit");
    await fillAccount(userId, LIMIT - 1);
    const ns = (env as unknown as { THREAD: DurableObjectNamespace }).THREAD;
    const threadId = ns.newUniqueId().toString();
    const caller = { userId, name: userId, roles: [], admin: false };
    // Made as a direct call makes it; the call is cut before the thread is removed (nobody removes it).
    expect((await stubOf(threadId).create(caller, { ephemeral: true }, threadId)).ok).toBe(true);
    expect(await countedCount(userId)).toBe(LIMIT - 1);
    expect(await runDurableObjectAlarm(rawStub(threadId))).toBe(true);
    expect([await countedCount(userId), await listedCount(userId)]).toEqual([LIMIT, LIMIT - 1]);
    await inThread(threadId, (instance) => {
      instance.world.meta.createdAt -= SCRATCH_TTL_MS + 1;
      instance.store.meta.write(instance.world.meta);
    });
    expect(await runDurableObjectAlarm(rawStub(threadId))).toBe(true);
    expect(await tablesOf(threadId)).toBe(0);
    expect(await countedCount(userId)).toBe(LIMIT - 1);
  });
  for (const how of ["continuationToken", "Idempotency-Key"] as const) {
    it(`a ${how} re-create whose Worker claim came before a DELETE and whose create came after it is refused at the limit`, async () => {
      // Reviews 20a and 20b: the Worker's claim found the id listed (the deleted thread's entry) and added
      // nothing; the removal freed that slot, another create took it, and the new thread was listed past the limit.
      const { userId, token } = await freshUser("limit");
      const caller = { userId, name: userId, roles: [], admin: false };
      const key = crypto.randomUUID();
      const body = how === "continuationToken" ? { agent: "deletable", continuationToken: `ct:${key}` } : { agent: "deletable" };
      const first = await send(token, "POST", "/threads", body, how === "Idempotency-Key" ? { "idempotency-key": key } : {});
      const id = first.body.threadId as string;
      await fillAccount(userId, LIMIT);
      // The Worker's first step of the create again: the id is listed (the old thread's), nothing is added.
      const { ACCOUNT: _account, ...vars } = env as unknown as Record<string, unknown>;
      expect((await claimThread(accountStubOf(userId) as never, vars, { threadId: id, agentId: "deletable", createdAt: Date.now() })).ok).toBe(true);
      // The DELETE runs to its end and another create takes the slot it freed.
      expect((await send(token, "DELETE", `/threads/${id}`)).status).toBe(200);
      expect((await send(token, "POST", "/threads", { agent: "deletable" })).status).toBe(201);
      // The Worker's second step reaches the thread object now.
      const created = await stubOf(id).create(caller, { agent: "deletable" } as never, id, how === "Idempotency-Key" ? ({ key, fingerprint: "f".repeat(64) } as never) : undefined);
      expect({ created: created.ok, counted: await countedCount(userId) }).toEqual({ created: false, counted: LIMIT });
    }, 60_000);
  }
});
