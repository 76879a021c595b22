/**
 * A schedule's occurrence run at once, at a person's asking (`POST /schedules/files/:name/run`),
 * the way the alarm fires a due one (schedules.ts `fireOne`): journaled in one transaction with its
 * message (an agent target) or then run as its call under the call id made from its key (a tool
 * target), under the schedule's `overlap` rule, and announced by `schedule_fired` with `manual`.
 * Its `dueAt` is the time of asking; the schedule's next occurrence stays where it was.
 * @module
 */
import { WeftError, echoedValue, quotedValue } from "../errors.js";
import type { TurnRunner } from "../run/turn-runner.js";
import type { RunWorld } from "../run/world.js";
import { threadIdOf, threadOf } from "./adopt.js";
import { scheduleClock } from "./clock.js";
import { fileScheduleHolds } from "./files.js";
import { OCCURRENCES_KEPT } from "./schedules.js";
import { type ScheduleRun, occurrenceCallId, occurrenceKey } from "./info.js";
import type { OccurrenceRow, ScheduleRow } from "./rows.js";
import type { ScheduleStore } from "./store.js";
import { nextDue } from "./timing.js";

/** What running an occurrence needs of the thread's schedules (src/schedules/schedules.ts). */
export interface OccurrenceFirer {
  readonly store: ScheduleStore;
  journalOne(world: RunWorld, row: ScheduleRow, dueAt: number, now: number, overlapping: boolean, behind: boolean): OccurrenceRow | "overlap" | "queue_full" | null;
  run(o: OccurrenceRow): Promise<void>;
}

/**
 * Runs an occurrence of `scheduleId` now: a tool target's call is awaited until it ends or waits
 * for a person, an agent target's message is queued and the thread's turn started.
 * @throws WeftError `schedule_not_found` (404, `details.scheduleId`) for a schedule the thread does
 *   not have, one cancelled or ended (`done`), or a file version the running deployment no longer has.
 */
export async function runScheduleNow(schedules: OccurrenceFirer, world: RunWorld, runner: TurnRunner, scheduleId: string): Promise<ScheduleRun> {
  const store = schedules.store;
  const row = store.get(scheduleId);
  // Cancelled, or ended (its `at` ran, its `until` passed): its author's word that no more run.
  if (row && row.status !== "active") {
    throw new WeftError("schedule_not_found", `schedule ${quotedValue(scheduleId)} is ${row.status}: it runs no more`, { scheduleId: echoedValue(scheduleId), status: row.status });
  }
  if (!row || !fileScheduleHolds(world.registry, scheduleId, threadOf(world), threadIdOf(world))) {
    throw new WeftError("schedule_not_found", `no schedule ${quotedValue(scheduleId)} that may run in this thread`, { scheduleId: echoedValue(scheduleId) });
  }
  const now = scheduleClock.now();
  // A key of its own: never one a due occurrence has (it keeps its own run) or an earlier run took.
  let dueAt = now;
  while (store.occurrence(occurrenceKey(row.id, dueAt)) || nextDue(row.spec, row.anchor, dueAt - 1) === dueAt) dueAt++;
  const tool = "tool" in row.spec.target;
  const o = store.atomically(() => {
    const overlapping = tool ? store.open(1, row.id).length > 0 : store.messagesWaiting(row.id) > 0;
    const journaled = schedules.journalOne(world, row, dueAt, now, overlapping, false);
    // As each firing of the alarm does: runs asked for in a loop must not grow the journal without end.
    store.prune(row.id, OCCURRENCES_KEPT);
    return journaled;
  });
  if (o === null) throw new WeftError("internal_error", `the occurrence ${occurrenceKey(row.id, dueAt)} was journaled already`);
  const run = { scheduleId: row.id, key: occurrenceKey(row.id, dueAt), dueAt: new Date(dueAt).toISOString() };
  if (o === "overlap" || o === "queue_full") {
    world.emit("schedule_skipped", { scheduleId: row.id, reason: o, count: 1, dueAt: run.dueAt });
    return { ...run, status: "skipped", reason: o };
  }
  const callId = tool ? occurrenceCallId(row.id, dueAt) : undefined;
  world.emit("schedule_fired", { ...run, ...(callId ? { callId } : {}), manual: true });
  if (!tool) void runner.resume().catch(() => undefined);
  else if (o.status === "started") await schedules.run(o);
  return { ...run, status: o.status === "queued" ? "queued" : "fired", ...(callId ? { callId } : {}) };
}
