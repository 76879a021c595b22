/**
 * No schedule in a scratch thread (hostile review): a direct call without a thread runs in a
 * scratch thread removed when the call answers, so a schedule made there by the call's tool
 * (`state.schedule`) could never fire, and its slot in the owner's count
 * (WEFT_MAX_SCHEDULES_PER_USER) never came back. It is refused; nothing is stored or counted.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createThreadState } from "../../src/run/state.js";
import { inThread, stubOf } from "../helpers.js";
import { freshUser } from "../usage/users.js";

function counted(userId: string): Promise<number> {
  const ns = (env as unknown as { ACCOUNT: DurableObjectNamespace }).ACCOUNT;
  const run = runInDurableObject as unknown as (stub: DurableObjectStub, cb: (instance: any) => number) => Promise<number>;
  return run(ns.get(ns.idFromName(userId)), (instance) => (instance.ctx.storage.sql as SqlStorage).exec<{ n: number }>("SELECT COALESCE(SUM(active), 0) AS n FROM schedule_counts").one().n);
}

describe("schedules in scratch threads", () => {
  it("a tool's state.schedule in a scratch thread is refused (invalid_schedule, path []); no slot of the owner's is taken", async () => {
    const { userId } = await freshUser("sched-scratch");
    const caller = { userId, name: userId, roles: [], admin: false };
    const ns = (env as unknown as { THREAD: DurableObjectNamespace }).THREAD;
    const threadId = ns.newUniqueId().toString();
    // What a direct call without a thread does first: an ephemeral thread of the caller's.
    expect((await stubOf(threadId).create(caller, { agent: "guarantees", ephemeral: true } as any, threadId)).ok).toBe(true);
    const made = await inThread(threadId, (i) =>
      createThreadState(i.world, undefined, null)
        .schedule({ every: "1h", target: { tool: "effect_read", input: {} } })
        .then(
          () => null,
          (e: { code: string; details: unknown }) => [e.code, e.details],
        ),
    );
    expect(made).toEqual(["invalid_schedule", { path: [] }]);
    expect(await inThread(threadId, (i) => i.schedules.page().schedules)).toEqual([]);
    expect(await counted(userId)).toBe(0);
    expect((await stubOf(threadId).destroy(caller)).ok).toBe(true);
    expect(await counted(userId)).toBe(0);
  });
});
