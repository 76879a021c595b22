/**
 * The ledger port's contract, as behaviour checks any implementation must pass: rows, transitions,
 * finish once, held rows and the settle window, group commit, and the queries over many calls.
 * @module
 */
import { describe, expect, it } from "vitest";
import type { JournalEntry, Ledger, LedgerQueries } from "../../src/ports/ledger.js";

/** A ledger to test, and a look at what its storage holds now, held and deferred rows not written. */
export interface LedgerFixture {
  ledger: Ledger & LedgerQueries;
  /** The row's status as written now (null: not written), writing nothing held. */
  written(callId: string): string | null;
}

/** Runs `fn` over a fresh, empty ledger whose syncs are `sync` (the implementation's own when undefined). */
export type WithLedger = (sync: (() => Promise<void>) | undefined, fn: (f: LedgerFixture) => Promise<void>) => Promise<void>;

/** A journal row as the pipeline makes it. */
export function entry(callId: string, status: "queued" | "started", more: Partial<JournalEntry> = {}): JournalEntry {
  return { callId, toolName: "t", source: "direct", status, argsText: '{"a":1}', input: { a: 1 }, effectKey: `b:${callId}`, ...more };
}

const OK = { status: "success" as const, result: "first" };
const LATER = { status: "success" as const, result: "second" };
const instant = () => Promise.resolve();
/** One macrotask: every microtask (the settle window) has run. */
const task = () => new Promise((r) => setTimeout(r, 0));

/** A sync that ends only when the test says so. */
function manualSync() {
  const pending: Array<() => void> = [];
  let started = 0;
  const sync = () => {
    started++;
    return new Promise<void>((resolve) => pending.push(resolve));
  };
  return { sync, started: () => started, endOne: () => pending.shift()?.() };
}

/** Registers the ledger contract's tests for implementation `impl`. */
export function ledgerConformance(impl: string, withLedger: WithLedger): void {
  const run = (fn: (f: LedgerFixture) => Promise<void> | void, sync: (() => Promise<void>) | undefined = instant) => withLedger(sync, async (f) => void (await fn(f)));

  describe(`ledger port: ${impl}`, () => {
    it("begin stores a row get reads back: queued with 0 attempts, started with 1", () =>
      run(({ ledger }) => {
        ledger.begin(entry("q", "queued", { turnId: "turn1", parentCallId: "p" }));
        ledger.begin(entry("s", "started"));
        expect(ledger.get("q")).toMatchObject({ callId: "q", toolName: "t", source: "direct", status: "queued", attempts: 0, input: { a: 1 }, effectKey: "b:q", turnId: "turn1", parentCallId: "p" });
        expect(ledger.get("s")).toMatchObject({ status: "started", attempts: 1 });
        expect(typeof ledger.get("s")!.startedAt).toBe("number");
        expect(ledger.get("none")).toBeUndefined();
      }));

    it("a second row for an id is refused and the first stands", () =>
      run(({ ledger }) => {
        ledger.begin(entry("x", "queued"));
        expect(() => ledger.begin(entry("x", "started", { toolName: "other" }))).toThrow();
        expect(ledger.get("x")).toMatchObject({ toolName: "t", status: "queued" });
        expect([...ledger.list()]).toHaveLength(1);
      }));

    it("finish records once: a second finish returns false and the first result stands", () =>
      run(({ ledger }) => {
        ledger.begin(entry("c", "started"));
        expect(ledger.finish("c", "succeeded", OK, { attempts: 1, durationMs: 5 })).toBe(true);
        expect(ledger.finish("c", "failed", LATER, { attempts: 3, durationMs: 9, errorCode: "x" })).toBe(false);
        const row = ledger.get("c")!;
        expect(row).toMatchObject({ status: "succeeded", result: OK, attempts: 1, durationMs: 5 });
        expect(row.errorCode).toBeUndefined();
        expect(typeof row.finishedAt).toBe("number");
        expect(ledger.finish("never", "succeeded", OK, { attempts: 1, durationMs: 1 })).toBe(false);
        expect(ledger.get("never")).toBeUndefined();
      }));

    it("a final row is never moved again: start, park, awaitApproval and attempt leave it", () =>
      run(({ ledger }) => {
        ledger.begin(entry("c", "started"));
        ledger.finish("c", "failed", OK, { attempts: 1, durationMs: 1, outcome: "unknown", errorDetails: { why: 1 } });
        ledger.start("c", { b: 2 }, "read");
        ledger.park("c", "later");
        ledger.awaitApproval("c", {}, "h");
        ledger.attempt("c");
        expect(ledger.get("c")).toMatchObject({ status: "failed", attempts: 1, input: { a: 1 }, outcome: "unknown", errorDetails: { why: 1 } });
        expect(ledger.get("c")!.effect).toBeUndefined();
        expect(ledger.get("c")!.parkReason).toBeUndefined();
      }));

    it("start moves a queued call to started with one more attempt and its input; attempt counts retries of a started call only", () =>
      run(({ ledger }) => {
        ledger.begin(entry("q", "queued"));
        ledger.attempt("q");
        expect(ledger.get("q")).toMatchObject({ status: "queued", attempts: 0 });
        ledger.start("q", { b: 2 }, "write");
        ledger.attempt("q");
        expect(ledger.get("q")).toMatchObject({ status: "started", attempts: 2, input: { b: 2 } });
      }));

    it("a row keeps the effect class and setting it was started under, from the statement that starts it: begun, held, deferred or started later", () =>
      run(async ({ ledger }) => {
        ledger.begin(entry("q", "queued"));
        expect(ledger.get("q")!.effect).toBeUndefined();
        ledger.start("q", {}, "idempotent:60000");
        ledger.begin(entry("w", "started", { effect: "write" }));
        ledger.beginHeld(entry("r", "started", { effect: "read" }));
        expect(ledger.finish("r", "succeeded", OK, { attempts: 1, durationMs: 1 })).toBe(true);
        await ledger.beginDurably(entry("d", "started", { effect: "reconcilable:nonfinal" }));
        expect(["q", "w", "r", "d"].map((id) => ledger.get(id)!.effect)).toEqual(["idempotent:60000", "write", "read", "reconcilable:nonfinal"]);
        // Parked, it still says what may have run.
        ledger.park("w", "uncertain");
        expect(ledger.get("w")).toMatchObject({ status: "parked", effect: "write" });
      }));

    it("awaitApproval and decide: the call waits for a person, bound to its hash, and records who decided", () =>
      run(({ ledger }) => {
        ledger.begin(entry("w", "queued", { turnId: "turn1" }));
        expect(ledger.waitForPerson()).toBe(false);
        ledger.awaitApproval("w", { c: 3 }, "abc123");
        expect(ledger.get("w")).toMatchObject({ status: "awaiting_approval", argsHash: "abc123", input: { c: 3 } });
        expect(ledger.waitForPerson()).toBe(true);
        expect(ledger.turnWaits("turn1")).toBe(true);
        expect(ledger.turnWaits("turn2")).toBe(false);
        ledger.decide("w", { approvedBy: "ann" });
        ledger.decide("w", { decidedBy: "bob" });
        expect(ledger.get("w")).toMatchObject({ approvedBy: "ann", decidedBy: "bob" });
      }));

    it("park holds a call for a person with its reason; restarted counts runs cut by a restart", () =>
      run(({ ledger }) => {
        ledger.begin(entry("p", "started"));
        expect(ledger.restarted("p")).toBe(1);
        expect(ledger.restarted("p")).toBe(2);
        ledger.park("p", "outcome unknown");
        expect(ledger.get("p")).toMatchObject({ status: "parked", parkReason: "outcome unknown", restarts: 2 });
        expect(ledger.waitForPerson()).toBe(true);
        expect(() => ledger.restarted("nobody")).toThrow();
      }));

    it("a held row is not written yet, is found by get (which writes it), and goes in before any later row", () =>
      run(({ ledger, written }) => {
        ledger.begin(entry("a", "queued"));
        ledger.beginHeld(entry("h", "started"));
        expect(written("h")).toBeNull();
        expect(ledger.get("h")).toMatchObject({ status: "started", attempts: 1 });
        expect(written("h")).toBe("started");
        ledger.beginHeld(entry("h2", "started"));
        ledger.begin(entry("c", "queued"));
        expect([...ledger.list()].map((c) => c.callId)).toEqual(["a", "h", "h2", "c"]);
      }));

    it("a held row is written by the settle window, before the microtasks drain", () =>
      run(async ({ ledger, written }) => {
        ledger.beginHeld(entry("h", "started"));
        expect(written("h")).toBeNull();
        await task();
        expect(written("h")).toBe("started");
        expect(ledger.get("h")).toMatchObject({ status: "started" });
      }));

    it("a held row finished within the window goes in with its result, once", () =>
      run(async ({ ledger, written }) => {
        ledger.beginHeld(entry("h", "started"));
        expect(ledger.finish("h", "succeeded", OK, { attempts: 1, durationMs: 0 })).toBe(true);
        expect(written("h")).toBe("succeeded");
        expect(ledger.finish("h", "failed", LATER, { attempts: 1, durationMs: 0 })).toBe(false);
        await task();
        expect(ledger.get("h")).toMatchObject({ status: "succeeded", result: OK });
        expect([...ledger.list()]).toHaveLength(1);
      }));

    it("group commit: rows begun durably while a sync runs are visible at once and share the next sync, never the running one", async () => {
      const m = manualSync();
      await withLedger(m.sync, async ({ ledger, written }) => {
        const answered: string[] = [];
        const first = ledger.beginDurably(entry("d1", "started")).then(() => answered.push("d1"));
        expect(m.started()).toBe(1);
        expect(written("d1")).toBe("started");
        const later = ["d2", "d3"].map((id) => ledger.beginDurably(entry(id, "started")).then(() => answered.push(id)));
        expect(ledger.get("d2")).toMatchObject({ status: "started" });
        m.endOne();
        await first;
        await task();
        expect(answered).toEqual(["d1"]);
        expect(m.started()).toBe(2);
        expect(written("d3")).toBe("started");
        m.endOne();
        await Promise.all(later);
        expect(answered).toEqual(["d1", "d2", "d3"]);
        expect([...ledger.list()].map((c) => c.callId)).toEqual(["d1", "d2", "d3"]);
      });
    });

    it("group commit: a deferred row that cannot be stored rejects its own call alone", async () => {
      const m = manualSync();
      await withLedger(m.sync, async ({ ledger }) => {
        ledger.begin(entry("dup", "queued"));
        const first = ledger.beginDurably(entry("d1", "started"));
        const bad = ledger.beginDurably(entry("dup", "started")).then(
          () => "resolved",
          () => "rejected",
        );
        const good = ledger.beginDurably(entry("d2", "started"));
        m.endOne();
        await first;
        await task();
        m.endOne();
        await good;
        expect(await bad).toBe("rejected");
        expect(ledger.get("dup")).toMatchObject({ status: "queued" });
        expect(ledger.get("d2")).toMatchObject({ status: "started" });
      });
    });

    it("rows deferred for the next sync take their place before a held row finished after them", async () => {
      const m = manualSync();
      await withLedger(m.sync, async ({ ledger }) => {
        const first = ledger.beginDurably(entry("d1", "started"));
        const second = ledger.beginDurably(entry("d2", "started"));
        ledger.beginHeld(entry("h", "started"));
        expect(ledger.finish("h", "succeeded", OK, { attempts: 1, durationMs: 0 })).toBe(true);
        expect([...ledger.list()].map((c) => c.callId)).toEqual(["d1", "d2", "h"]);
        m.endOne();
        await first;
        await task();
        m.endOne();
        await second;
        expect(ledger.get("d2")).toMatchObject({ status: "started" });
      });
    });

    it("flush is never answered by a sync that began before it was asked", async () => {
      const m = manualSync();
      await withLedger(m.sync, async ({ ledger }) => {
        let done = false;
        const first = ledger.flush();
        const second = ledger.flush().then(() => (done = true));
        m.endOne();
        await first;
        await task();
        expect(done).toBe(false);
        m.endOne();
        await second;
        expect(done).toBe(true);
      });
    });

    it("beginDurably with the implementation's own sync resolves with the row stored", () =>
      withLedger(undefined, async ({ ledger, written }) => {
        await ledger.beginDurably(entry("d", "started"));
        await ledger.flush();
        expect(written("d")).toBe("started");
      }));

    it("queries: the queue in order, started calls without a result, queued children level by level, listings", () =>
      run(({ ledger }) => {
        expect(ledger.queued()).toEqual([]);
        expect(ledger.mayHaveQueued()).toBe(false);
        ledger.begin(entry("q1", "queued", { source: "queue", parentCallId: "root" }));
        expect(ledger.mayHaveQueued()).toBe(true);
        ledger.begin(entry("s1", "started"));
        ledger.begin(entry("q2", "queued", { source: "queue", parentCallId: "q1" }));
        ledger.begin(entry("i1", "queued", { source: "invoke", parentCallId: "root" }));
        ledger.begin(entry("q3", "queued", { source: "queue", parentCallId: "root" }));
        expect(ledger.queued().map((c) => c.callId)).toEqual(["q1", "q2", "i1", "q3"]);
        expect(ledger.queuedBy("root").map((c) => c.callId)).toEqual(["q1", "q3", "q2"]);
        expect(ledger.unfinished().map((c) => c.callId)).toEqual(["s1"]);
        expect(ledger.invokedWaiting("root")).toBe(false);
        ledger.awaitApproval("i1", {}, "h");
        expect(ledger.invokedWaiting("root")).toBe(true);
        ledger.finish("s1", "succeeded", OK, { attempts: 1, durationMs: 1 });
        expect(ledger.unfinished()).toEqual([]);
        expect([...ledger.list(2, 1)].map((c) => c.callId)).toEqual(["s1", "q2"]);
        expect([...ledger.list(10, 0, "queued")].map((c) => c.callId)).toEqual(["q1", "q2", "q3"]);
        expect([...ledger.list(10, 0, "succeeded")].map((c) => c.callId)).toEqual(["s1"]);
        // Several statuses at once, in creation order (what a person's inbox asks for: awaiting_approval and parked).
        ledger.park("q2", "a person decides");
        expect([...ledger.list(10, 0, ["awaiting_approval", "parked"])].map((c) => [c.callId, c.status])).toEqual([["q2", "parked"], ["i1", "awaiting_approval"]]);
        expect([...ledger.list(10, 0, ["queued", "succeeded"])].map((c) => c.callId)).toEqual(["q1", "s1", "q3"]);
        // By id: in the order asked, not the ledger's; an id with no row left out.
        expect([...ledger.getMany(["q3", "none", "s1", "q1"])].map((c) => [c.callId, c.status])).toEqual([["q3", "queued"], ["s1", "succeeded"], ["q1", "queued"]]);
        expect([...ledger.getMany([])]).toEqual([]);
      }));

    it("getMany finds a held row and deferred rows, as get does", () =>
      run(({ ledger }) => {
        ledger.begin(entry("a", "queued"));
        ledger.beginHeld(entry("h", "started"));
        expect([...ledger.getMany(["h", "a"])].map((c) => c.callId)).toEqual(["h", "a"]);
      }));
  });
}
