/**
 * A schedule as the API, events and tools see it.
 * @module
 */
import type { ScheduleSpec } from "./spec.js";
import type { ScheduleRow, ScheduleStatus } from "./store.js";

/** A schedule as `GET /threads/:id/schedules`, `state.listSchedules()` and `schedule_created` give it. */
export interface ScheduleInfo {
  /** The schedule's id (`sch_...`). */
  scheduleId: string;
  /** `active`, `cancelled`, or `done` (no occurrence left). */
  status: ScheduleStatus;
  /** The next occurrence's nominal time (its key's `dueAt`), ISO-8601; null when none is left. */
  nextDueAt: string | null;
  /** When it was made, ISO-8601. */
  createdAt: string;
  /** The schedule as checked: `at` and `until` in epoch ms, `everyMs` for `every`, defaults filled in. */
  schedule: ScheduleSpec;
}

/** The info of a row. */
export function infoOf(row: ScheduleRow): ScheduleInfo {
  return {
    scheduleId: row.id,
    status: row.status,
    nextDueAt: row.nextDue === null ? null : new Date(row.nextDue).toISOString(),
    createdAt: new Date(row.createdAt).toISOString(),
    schedule: row.spec,
  };
}

/** An occurrence's key: `scheduleId:dueAt` (epoch ms), the same however often it is evaluated. */
export const occurrenceKey = (scheduleId: string, dueAt: number) => `${scheduleId}:${dueAt}`;

/** The call id a tool target's occurrence runs under: made from its key, so a repeat finds the call. */
export const occurrenceCallId = (scheduleId: string, dueAt: number) => `sched_${scheduleId}_${dueAt}`;
