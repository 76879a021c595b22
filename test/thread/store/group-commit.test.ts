/**
 * Group commit: concurrent flushes share syncs, and none is answered by a sync that started
 * before it asked (the journal-first promise); the journal rows of calls that arrive while a sync
 * runs are written together just before the next one starts, and a lone call's row at once.
 */
import { describe, expect, it } from "vitest";
import { GroupCommit } from "../../../src/calls/group-commit.js";
import { createThread, inThread, json } from "../../helpers.js";

/** A sync that resolves only when the test says so; `log` records when each started and ended. */
function manualSync() {
  const pending: Array<() => void> = [];
  const log: string[] = [];
  let n = 0;
  const sync = () => {
    const id = ++n;
    log.push(`start ${id}`);
    return new Promise<void>((resolve) => pending.push(() => (log.push(`end ${id}`), resolve())));
  };
  return { sync, log, finishOne: () => pending.shift()?.() };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe("group commit", () => {
  it("a lone flush starts a sync at once; flushes asked during it share the next one", async () => {
    const m = manualSync();
    const commits = new GroupCommit(m.sync);
    const answered: string[] = [];
    const first = commits.flush().then(() => answered.push("first"));
    expect(m.log).toEqual(["start 1"]);
    const waiting = [1, 2, 3].map((i) => commits.flush().then(() => answered.push(`later ${i}`)));
    await tick();
    // None of the later ones may ride on sync 1: it started before they asked.
    expect(m.log).toEqual(["start 1"]);
    m.finishOne();
    await first;
    await tick();
    expect(answered).toEqual(["first"]);
    expect(m.log).toEqual(["start 1", "end 1", "start 2"]);
    m.finishOne();
    await Promise.all(waiting);
    expect(answered).toEqual(["first", "later 1", "later 2", "later 3"]);
    expect(commits.syncs).toBe(2);
  });

  it("beforeSync runs right before each sync, in the same synchronous step; syncing says whether one runs", async () => {
    const m = manualSync();
    const commits = new GroupCommit(m.sync, () => m.log.push("before"));
    expect(commits.syncing).toBe(false);
    const first = commits.flush();
    expect(m.log).toEqual(["before", "start 1"]);
    expect(commits.syncing).toBe(true);
    const second = commits.flush();
    commits.flush();
    await tick();
    expect(m.log).toEqual(["before", "start 1"]);
    m.finishOne();
    await first;
    await tick();
    expect(m.log).toEqual(["before", "start 1", "end 1", "before", "start 2"]);
    m.finishOne();
    await second;
    await tick();
    expect(commits.syncing).toBe(false);
    expect(commits.syncs).toBe(2);
  });

  it("a failed sync fails its own waiters, and the next flush starts afresh", async () => {
    let fail = true;
    const commits = new GroupCommit(async () => {
      if (fail) throw new Error("disk full");
    });
    await expect(commits.flush()).rejects.toThrow("disk full");
    fail = false;
    await expect(commits.flush()).resolves.toBeUndefined();
    expect(commits.syncs).toBe(2);
  });

  it("write calls through the Durable Object wait for no sync: the output gate orders each row before its effect; every call keeps one row with its result", async () => {
    // The syncs that batch requests (`GroupCommit.batched`) start after a call's work; none is a flush a call waits on.
    const id = await createThread({ agent: "guarantees" });
    const count = () => inThread(id, (instance: any) => ({ syncs: instance.commits.syncs as number, deferred: instance.store.calls.deferrals as number }));
    const before = await count();
    const answers = await Promise.all(
      Array.from({ length: 16 }, (_, i) => json("POST", "/v1/tools/effect_write", { sessionId: id, input: { label: `d${i}` } })),
    );
    for (let i = 0; i < 5; i++) answers.push(await json("POST", "/v1/tools/effect_write", { sessionId: id, input: { label: `lone${i}` } }));
    expect(answers.map((a) => a.body.ok)).toEqual(Array(21).fill(true));
    const after = await count();
    expect([after.syncs - before.syncs, after.deferred - before.deferred]).toEqual([0, 0]);
    const rows = await inThread(id, (instance: any) => [...instance.store.calls.list(100)] as Array<{ callId: string; status: string; result?: unknown }>);
    const ids = new Set(answers.map((a) => a.body.callId));
    const mine = rows.filter((r) => ids.has(r.callId));
    expect(mine).toHaveLength(21);
    expect(mine.every((r) => r.status === "succeeded" && r.result !== undefined)).toBe(true);
  });

  it("a deferred row is found by every reader of the journal before it is written, in arrival order, and a failed insert is kept for its call", async () => {
    const id = await createThread({ agent: "guarantees" });
    await inThread(id, (instance: any) => {
      const calls = instance.store.calls;
      const entry = (callId: string) => ({ callId, toolName: "effect_write", source: "direct", status: "started", argsText: "{}", input: {}, effectKey: `k-${callId}` });
      calls.insert(entry("first"));
      const a = calls.defer(entry("deferred_a"));
      const b = calls.defer(entry("deferred_b"));
      // A reader settles them first: found as if inserted, oldest first, before anything inserted later.
      expect(calls.get("deferred_a")?.status).toBe("started");
      calls.insert(entry("later"));
      expect([...calls.list(10)].map((c: { callId: string }) => c.callId)).toEqual(["first", "deferred_a", "deferred_b", "later"]);
      expect(a.failure).toBeUndefined();
      expect(b.failure).toBeUndefined();
      // An insert that fails (an id taken meanwhile) is kept on its row, not thrown at whoever settles it.
      const dup = calls.defer(entry("first"));
      const ok = calls.defer(entry("after_dup"));
      expect(() => calls.settleDeferred()).not.toThrow();
      expect(String(dup.failure)).toMatch(/UNIQUE/);
      expect(ok.failure).toBeUndefined();
      expect(calls.get("after_dup")?.status).toBe("started");
      // Storage reset under a waiting row: its call must not run.
      const lost = calls.defer(entry("lost"));
      calls.forget();
      expect(String(lost.failure)).toMatch(/reset/);
      expect(calls.get("lost")).toBeUndefined();
    });
  });
});
