/**
 * Helpers of the schedule tests: a clock the test moves, schedules made and fired inside the
 * thread's Durable Object, its alarm read from storage.
 * @module
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { scheduleClock } from "../../src/schedules/clock.js";
import type { ScheduleInfo } from "../../src/schedules/info.js";
import type { OccurrenceRow } from "../../src/schedules/rows.js";
import { effectRuns, inThread, json, keyed, rawStub, until } from "../helpers.js";

/** 2030-01-01T00:00:00Z: the tests' clock starts here, far from the real one, so no alarm fires on its own. */
export const T0 = Date.UTC(2030, 0, 1);
export const MINUTE = 60_000;

/** Sets the schedules' clock (epoch ms); `null` gives it back to `Date.now`. */
export function setClock(at: number | null): void {
  scheduleClock.now = at === null ? () => Date.now() : () => at;
}

/** Makes a schedule inside the thread, as `state.schedule` does, for the thread's owner. */
export function makeSchedule(threadId: string, input: unknown): Promise<ScheduleInfo> {
  return inThread(threadId, (i) => i.schedules.create(input, "tester"));
}

/** The occurrences of a schedule, newest first. */
export function occurrencesOf(threadId: string, scheduleId: string): Promise<OccurrenceRow[]> {
  return inThread(threadId, (i) => i.schedules.store.occurrences(scheduleId));
}

/** The thread's stored alarm (epoch ms), or null. */
export function alarmOf(threadId: string): Promise<number | null> {
  return inThread(threadId, (_i) => _i.ctx.storage.getAlarm());
}

/**
 * Delivers the thread's alarm now (`runDurableObjectAlarm`): true when one was set and ran,
 * false when none was set; "crashed" when an injected crash cut the handler.
 */
export function deliverAlarm(threadId: string): Promise<boolean | "crashed"> {
  return runDurableObjectAlarm(rawStub(threadId)).then(
    (ran) => ran,
    (e: Error) => {
      if (!/injected crash|abort/i.test(String(e))) throw e;
      return "crashed" as const;
    },
  );
}

/** How often the ledger saw a tool occurrence's call (`sched_<scheduleId>_<dueAt>`) of thread `threadId` run. */
export const occurrenceRuns = (threadId: string, scheduleId: string, dueAt: number) => effectRuns(threadId, `sched_${scheduleId}_${dueAt}`);

/** Counts held by {@link holdCount}, by tag: calling one sends its count to the account. */
export const heldCounts = ((globalThis as unknown as { __heldCount?: Record<string, () => void> }).__heldCount ??= {});

/** Holds the thread's next `countSchedules` (the owner's account's answer) until `heldCounts[tag]` is called. */
export function holdCount(threadId: string, tag: string): Promise<void> {
  return inThread(threadId, (t) => {
    const peers = t.world!.peers;
    const count = peers.countSchedules.bind(peers);
    peers.countSchedules = (...args: Parameters<typeof count>) => {
      peers.countSchedules = count;
      return new Promise((resolve, reject) => void (heldCounts[tag] = () => void count(...args).then(resolve, reject)));
    };
  });
}

/** The schedules the owner's account ("tester") counts for `threadId` (its `schedule_counts` row, 0 without one). */
export function countedIn(threadId: string): Promise<number> {
  const ns = (env as unknown as { ACCOUNT: DurableObjectNamespace }).ACCOUNT;
  const run = runInDurableObject as unknown as (stub: DurableObjectStub, cb: (a: { ctx: DurableObjectState }) => number) => Promise<number>;
  return run(ns.get(ns.idFromName("tester")), (a) => a.ctx.storage.sql.exec<{ n: number }>("SELECT COALESCE(SUM(active), 0) AS n FROM schedule_counts WHERE thread_id = ?", threadId).one().n);
}

/** A schedule request's body the tests of a deleted thread's stragglers send. */
export const HOURLY = { every: "1h", target: { tool: "effect_read", input: {} } };

/**
 * A thread made on a fresh `continuationToken` whose schedule request waits for the owner's
 * account (its count held, see {@link holdCount}) while a DELETE removes the thread: `made` makes a
 * thread on the id again, `release` sends the held count (late), `straggler` is the request's answer.
 */
export async function countHeldAcrossDelete(name: string) {
  const token = `${name}:${crypto.randomUUID()}`;
  const made = () => json("POST", "/threads", { agent: "guarantees", continuationToken: token });
  const id = (await made()).body.threadId as string;
  const tag = crypto.randomUUID();
  await holdCount(id, tag);
  const straggler = keyed("POST", `/threads/${id}/schedules`, `old-${tag}`, HOURLY);
  await until(() => inThread(id, () => heldCounts[tag] !== undefined), "the count check to wait");
  const deleted = await json("DELETE", `/threads/${id}`);
  if (deleted.status !== 200) throw new Error(`DELETE answered ${deleted.status}`);
  return { id, tag, made, straggler, release: () => inThread(id, () => heldCounts[tag]!()) };
}
