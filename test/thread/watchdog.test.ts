/**
 * The watchdog alarm of direct calls: a call whose row is stored unfinished (a call waiting for
 * I/O when its row commits) has an alarm due within one period (`WEFT_WATCHDOG_MS`, 100 ms in the
 * test worker) of its start, a call that finishes at once (a read, a write only to the thread's
 * own storage) arms none, a thread in steady use
 * renews its alarm from its calls instead of letting it fire, and a write cut by a crash after
 * such renewals is still finished by the alarm alone, with no client request. (A read cut while
 * it waits for I/O is finished by the alarm alone too: the crash matrix's direct read cells.)
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { SETTLE_TURNS } from "../../src/calls/settle-window.js";
import { ThreadAlarm } from "../../src/thread/alarm.js";
import { callsWithoutOneResult, crashAt, settleParked, waitAtRest, waitForAlarm } from "../crash/matrix.js";
import { callsOf, createThread, inThread, json, effectRuns, stubOf } from "../helpers.js";

const PERIOD = Number((env as Record<string, unknown>).WEFT_WATCHDOG_MS);

/** A storage with only the alarm, counting writes. */
function fakeStorage(at: number | null) {
  const store = {
    at,
    writes: 0,
    getAlarm: async () => store.at,
    setAlarm: async (t: number) => {
      store.at = t;
      store.writes++;
    },
    deleteAlarm: async () => {
      store.at = null;
      store.writes++;
    },
  };
  return store;
}

describe("the watchdog alarm's rule", () => {
  it("arms when none is set or the set one is later; keeps an earlier one unless moving it gains the renewal step", async () => {
    const storage = fakeStorage(null);
    const alarm = new ThreadAlarm(storage as unknown as DurableObjectStorage, 1000);
    await alarm.ensureBy(1000, 750);
    expect([storage.at, storage.writes]).toEqual([1000, 1]);
    // Due soon enough, and moving it would gain less than the step: nothing written.
    await alarm.ensureBy(1700, 750);
    expect([storage.at, storage.writes]).toEqual([1000, 1]);
    // Moving it gains the step: renewed ahead.
    await alarm.ensureBy(1750, 750);
    expect([storage.at, storage.writes]).toEqual([1750, 2]);
    // Never renewed without a step (another call or a turn runs), however far it would move.
    await alarm.ensureBy(9000);
    expect([storage.at, storage.writes]).toEqual([1750, 2]);
    // Never later than asked: a later alarm moves earlier.
    await alarm.ensureBy(1200, 750);
    expect([storage.at, storage.writes]).toEqual([1200, 3]);
    // Fired: the handler sees the thread was in use; the next call arms again.
    expect(alarm.wanted).toBe(true);
    alarm.fired();
    storage.at = null;
    expect(alarm.wanted).toBe(false);
    await alarm.ensureBy(5000);
    expect([storage.at, storage.writes]).toEqual([5000, 4]);
    // Armed again by the handler (nothing was due): calls move it ahead like one they armed.
    alarm.fired();
    await alarm.rearm(6000);
    await alarm.ensureBy(6800, 750);
    expect([storage.at, storage.writes]).toEqual([6800, 6]);
  });

  it("never moves later an alarm found in storage or set for due work: only one it armed itself", async () => {
    // Found in storage: set before this instance, maybe for work a crash cut.
    const storage = fakeStorage(400);
    const alarm = new ThreadAlarm(storage as unknown as DurableObjectStorage, 1000);
    await alarm.ensureBy(2000, 750);
    expect([storage.at, storage.writes]).toEqual([400, 0]);
    // Set for due work (recovery, queued calls, a turn): kept however far a renewal would move it.
    await alarm.set(500);
    await alarm.ensureBy(2000, 750);
    expect([storage.at, storage.writes]).toEqual([500, 1]);
    // Fired; armed by a call, it is the watchdog's own and renews.
    alarm.fired();
    storage.at = null;
    await alarm.ensureBy(1000, 750);
    await alarm.ensureBy(1750, 750);
    expect([storage.at, storage.writes]).toEqual([1750, 3]);
  });

  it("reads the stored alarm once per instance", async () => {
    const storage = fakeStorage(400);
    let reads = 0;
    const counted = { ...storage, getAlarm: async () => (reads++, storage.at) };
    const alarm = new ThreadAlarm(counted as unknown as DurableObjectStorage, 1000);
    await alarm.ensureBy(1000, 750);
    await alarm.ensureBy(1100, 750);
    expect(reads).toBe(1);
  });
});

describe("the watchdog alarm of direct calls", () => {
  it("stays due within one period of every call's start while calls keep coming, and moves ahead with them", async () => {
    const id = await createThread({ agent: "guarantees" });
    const owner = { userId: "tester", name: "tester", roles: [], admin: false };
    const seen: number[] = [];
    const began = Date.now();
    for (let i = 0; Date.now() - began < 4 * PERIOD || i < 10; i++) {
      // Read in the object right after the call, so no alarm can fire in between.
      const { before, after, at, ok } = await inThread(id, async (t) => {
        const before = Date.now();
        const result = await t.callTool(owner, { toolName: "effect_write", input: { label: `w${i}` } });
        return { before, after: Date.now(), ok: result.ok, at: (await t.ctx.storage.getAlarm()) as number | null };
      });
      expect(ok).toBe(true);
      // Set, due no later than a period after this call began (which is between before and after:
      // the RPC reads the owner's env first), and not stale.
      expect(at).not.toBeNull();
      expect(at!).toBeLessThanOrEqual(after + PERIOD);
      expect(at!).toBeGreaterThan(before);
      seen.push(at!);
    }
    // Over four periods the alarm moved ahead with the calls (renewed, or fired and armed again).
    expect(seen.at(-1)! - seen[0]!).toBeGreaterThanOrEqual(PERIOD);
    expect(await callsWithoutOneResult(id)).toEqual([]);
  });

  it("a read that answers at once and a write to the thread's own storage arm nothing; a write that waits for I/O arms the alarm with its journal row", async () => {
    const id = await createThread({ agent: "robustness" });
    for (let i = 0; i < 5; i++) {
      expect((await json("POST", "/v1/tools/emit_blob", { sessionId: id, input: { bytes: 3 } })).body).toMatchObject({ ok: true, status: "succeeded" });
      expect((await json("POST", "/v1/tools/store_big", { sessionId: id, input: { via: "setValue", bytes: 3 } })).body).toMatchObject({ ok: true, status: "succeeded" });
    }
    // Each call committed with its result: nothing was left for a watchdog to finish.
    expect(await inThread(id, (t) => t.ctx.storage.getAlarm())).toBeNull();
    const before = Date.now();
    expect((await json("POST", "/v1/tools/effect_write", { sessionId: id, input: { label: "w" } })).status).toBe(200);
    const at = (await inThread(id, (t) => t.ctx.storage.getAlarm())) as number | null;
    expect(at).not.toBeNull();
    expect(at!).toBeGreaterThan(before);
    expect(await callsWithoutOneResult(id)).toEqual([]);
  });

  it("a row left unfinished keeps its alarm when another transaction in the same step rolls back", async () => {
    const id = await createThread({ agent: "robustness" });
    const row = { callId: "kept", toolName: "effect_write", source: "direct" as const, status: "started" as const, argsText: "{}", effectKey: `${id}:kept` };
    await inThread(id, (t) => {
      t.store.calls.insert(row);
      // Found in review: the rollback's forget() once dropped the watch of rows it did not write.
      const failing = () => {
        throw new Error("another write fails");
      };
      expect(() => t.store.atomically(failing)).toThrow("another write fails");
    });
    expect(await inThread(id, (t) => t.store.calls.get("kept")?.status)).toBe("started");
    expect(await inThread(id, (t) => t.ctx.storage.getAlarm())).not.toBeNull();
  });

  it("a row left unfinished arms the watchdog once, within microtask turns; one finished within the settle window arms nothing", async () => {
    const id = await createThread({ agent: "robustness" });
    const counts = await inThread(id, async (t) => {
      const calls = t.store.calls;
      const arm = calls.onUnfinishedRow;
      let armed = 0;
      calls.onUnfinishedRow = () => (armed++, arm());
      const row = (callId: string) => ({ callId, toolName: "effect_write", source: "direct" as const, status: "started" as const, argsText: "{}", effectKey: `${id}:${callId}` });
      const finish = (callId: string) => calls.finish(callId, "succeeded", { status: "success", result: "ok" }, { attempts: 1, durationMs: 0 });
      const turns = async (n: number) => {
        for (let i = 0; i < n; i++) await Promise.resolve();
      };
      const drained = () => new Promise((resolve) => setTimeout(resolve, 0));
      const seen: number[] = [];
      // Two rows, one finished at once: armed once for the other, within microtask turns (before
      // workerd commits), and not again.
      calls.insert(row("a"));
      calls.insert(row("b"));
      finish("a");
      await turns(2 * SETTLE_TURNS);
      seen.push(armed);
      await drained();
      seen.push(armed);
      // Finished a few turns later, still within the window: nothing armed.
      calls.insert(row("c"));
      await turns(SETTLE_TURNS - 2);
      finish("c");
      await drained();
      seen.push(armed);
      // Finished only after the window (a call waiting for I/O): armed.
      calls.insert(row("d"));
      await drained();
      finish("d");
      seen.push(armed);
      calls.onUnfinishedRow = arm;
      return seen;
    });
    expect(counts).toEqual([1, 1, 1, 2]);
  });

  it("a write cut by a crash after its thread renewed the alarm is finished by the alarm alone", async () => {
    const id = await createThread({ agent: "guarantees" });
    const owner = { userId: "tester", name: "tester", roles: [], admin: false };
    const began = Date.now();
    for (let i = 0; Date.now() - began < 2 * PERIOD || i < 5; i++) {
      expect((await json("POST", "/v1/tools/effect_write", { sessionId: id, input: { label: `w${i}` } })).status).toBe(200);
    }
    // After the effect: the row is durable (the gate let the effect out only then).
    await crashAt(id, "c", "after_effect");
    // The RPC dies with the object; no request follows until the alarm has finished the call.
    await stubOf(id).callTool(owner, { toolName: "effect_write", input: {}, callId: "c" }).catch(() => undefined);
    expect(await waitForAlarm(id)).toBe(true);
    expect((await callsOf(id)).find((c) => c.callId === "c")?.status).toBe("parked");
    // Cut after its effect: the write ran once, and is not run again by recovery.
    expect((await effectRuns(id, "c")).runs).toBe(1);
    expect(await settleParked(id)).toBe(1);
    expect(await waitAtRest(id)).toBeNull();
    expect(await callsWithoutOneResult(id)).toEqual([]);
  });
});
