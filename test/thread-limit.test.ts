/**
 * The per-user thread limit on every path: a create, a direct call's scratch thread kept for a
 * call that waits for its approval, and an agent's child thread are each counted against the
 * owner's limit (`WEFT_MAX_THREADS_PER_USER`, default 1000) and refused at it, as a create is.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { LIMITS } from "../src/limits.js";
import { inThread, request, stubOf } from "./helpers.js";

const LIMIT = LIMITS.threadsPerUser.default;

/** A JWT for a user of its own, so its account holds only what this test puts there. */
async function freshUser(): Promise<{ userId: string; token: string }> {
  const userId = `limit-${crypto.randomUUID()}`;
  const token = await new SignJWT({})
    .setProtectedHeader({ alg: "HS256" })
    .setIssuer("weft-tests")
    .setAudience("weft-test")
    .setSubject(userId)
    .setExpirationTime(Math.floor(Date.now() / 1000) + 600)
    .sign(new TextEncoder().encode("weft-test-jwt-secret-not-for-production"));
  return { userId, token };
}

async function send(token: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await request(
    path,
    { method, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) },
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

describe("the per-user thread limit", () => {
  it("refuses a create, a kept scratch thread and a child thread alike at the limit; nothing is listed past it", async () => {
    const { userId, token } = await freshUser();
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
    const calls = await inThread(parent.body.threadId, (instance) => instance.store.calls.list(10, 0));
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
});
