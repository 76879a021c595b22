/**
 * Hostile review of d45c9e1: the schedules' and runs' stores learn that the thread's tables exist
 * from `migrate` (a WeakSet of `ctx.storage`), no longer from sqlite_master. Schedules must fire
 * after an eviction, after a delete and a re-create of a keyed thread, and after a restart that
 * cut a create between its migration and its rows.
 */
import { env, evictDurableObject, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { hasTables, migrate } from "../../../src/thread/store/migrations.js";
import { inThread, json, ledgerOf, rawStub, stubOf } from "../../helpers.js";
import { OWNER } from "../../removal-helpers.js";
import { MINUTE, T0, alarmOf, deliverAlarm, makeSchedule, setClock } from "../../schedules/helpers.js";

afterEach(() => setClock(null));

const seen = new Map<string, unknown>();

async function firesOnce(id: string) {
  setClock(T0);
  const s = await makeSchedule(id, { every: "5m", target: { tool: "effect_write", input: { label: "tick" } } });
  const due = T0 + 5 * MINUTE;
  expect(await alarmOf(id)).toBe(due);
  setClock(due);
  expect(await deliverAlarm(id)).toBe(true);
  // This lifetime's key exactly: a thread made again on the id has a branch of its own.
  const branch = await inThread(id, (i) => i.world.meta.branchId as string);
  expect(await ledgerOf(`${branch}:sched_${s.scheduleId}_${due}`)).toEqual({ runs: 1 });
}

describe("a thread's stores know its tables without sqlite_master", () => {
  it("ctx.storage is one object across requests of an instance, and hasTables says yes for a made thread", async () => {
    const made = await json("POST", "/threads", { agent: "guarantees" });
    const id = made.body.threadId as string;
    await runInDurableObject(rawStub(id), (i: any, state) => {
      seen.set(id, state.storage);
      expect(state.storage).toBe(i.ctx.storage);
    });
    await runInDurableObject(rawStub(id), (_i: any, state) => {
      expect(state.storage).toBe(seen.get(id));
      expect(hasTables(state.storage)).toBe(true);
    });
  });

  it("schedules fire after an eviction", async () => {
    const id = (await json("POST", "/threads", { agent: "guarantees" })).body.threadId as string;
    await evictDurableObject(rawStub(id));
    await firesOnce(id);
  });

  it("schedules fire after a delete and a re-create of a keyed thread in the same instance", async () => {
    const token = `ht-review:${crypto.randomUUID()}`;
    const id = (await json("POST", "/threads", { agent: "guarantees", continuationToken: token })).body.threadId as string;
    await firesOnce(id);
    expect((await json("DELETE", `/threads/${id}`)).status).toBe(200);
    await runInDurableObject(rawStub(id), (_i: any, state) => expect(hasTables(state.storage)).toBe(false));
    const again = await json("POST", "/threads", { agent: "guarantees", continuationToken: token });
    expect(again.status).toBe(201);
    expect(again.body.threadId).toBe(id);
    await firesOnce(id);
  });

  it("schedules fire in a thread whose create a restart cut after the migration (tables, no meta)", async () => {
    const id = (env as unknown as { THREAD: DurableObjectNamespace }).THREAD.newUniqueId().toString();
    await runInDurableObject(rawStub(id), (_i: any, state) => {
      migrate(state.storage);
    });
    await evictDurableObject(rawStub(id));
    const created = await stubOf(id).create(OWNER, { agent: "guarantees" }, id);
    expect(created.ok).toBe(true);
    await firesOnce(id);
  });

  it("a failed keyed create (its rows deleted) leaves no tables, and a later create's schedules fire", async () => {
    const id = (env as unknown as { THREAD: DurableObjectNamespace }).THREAD.newUniqueId().toString();
    const failed = await stubOf(id).create(OWNER, { agent: "no_such_agent_here" }, id, { key: "k1", fingerprint: "f1" });
    expect(failed.ok).toBe(false);
    await runInDurableObject(rawStub(id), (_i: any, state) => {
      expect(hasTables(state.storage)).toBe(false);
      expect(state.storage.sql.exec("SELECT name FROM sqlite_master").toArray()).toEqual([]);
    });
    const created = await stubOf(id).create(OWNER, { agent: "guarantees" }, id);
    expect(created.ok).toBe(true);
    await firesOnce(id);
  });
});
