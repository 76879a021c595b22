/**
 * A schedule as the API, events and tools see it.
 * @module
 */
import type { ScheduleSpec } from "./spec.js";
import type { ScheduleRow, ScheduleStatus } from "./rows.js";

/** A schedule as `GET /threads/:id/schedules`, `state.listSchedules()` and `schedule_created` give it. */
export interface ScheduleInfo {
  /** The schedule's id (`sch_...`). */
  scheduleId: string;
  /** `active`, `cancelled`, or `done` (no occurrence left). */
  status: ScheduleStatus;
  /** The next occurrence's nominal time (its key's `dueAt`), ISO-8601; null when none is left or the schedule is cancelled. */
  nextDueAt: string | null;
  /** When it was made, ISO-8601. */
  createdAt: string;
  /** The schedule as checked: `at` and `until` in epoch ms, `everyMs` for `every`, defaults filled in. */
  schedule: ScheduleSpec;
}

/** What a page of schedules is asked (`GET /threads/:id/schedules?limit=&cursor=`, `state.listSchedules(...)`): `limit` (1 to 1000, default 100) and a previous page's `nextCursor`. */
export interface SchedulePageOptions {
  /** At most this many schedules (1 to 1000, default 100); a page also stops at 1 MiB of JSON. */
  limit?: number;
  /** The previous page's `nextCursor`; omitted for the first page. */
  cursor?: string;
}

/** A page of schedules; `nextCursor` asks for the next, null on the last. */
export interface SchedulePage {
  /** The page's schedules, in creation order. */
  schedules: ScheduleInfo[];
  /** Pass back as `cursor` for the next page; null on the last page. */
  nextCursor: string | null;
}

/** The latest time a `Date` holds (epoch ms, year 275760). */
const DATE_MAX_MS = 8.64e15;

/**
 * ISO-8601 of an epoch-ms time, clamped into the `Date` range: a row stored before the range was
 * checked at create still lists (a throw here once made every listing of its thread a 500).
 */
const isoOf = (ms: number) => new Date(Number.isFinite(ms) ? Math.max(-DATE_MAX_MS, Math.min(DATE_MAX_MS, ms)) : DATE_MAX_MS).toISOString();

/** The info of a row. */
export function infoOf(row: ScheduleRow): ScheduleInfo {
  return {
    scheduleId: row.id,
    status: row.status,
    // A cancelled schedule fires no more, even where its row still holds the time it would have.
    nextDueAt: row.nextDue === null || row.status === "cancelled" ? null : isoOf(row.nextDue),
    createdAt: isoOf(row.createdAt),
    schedule: row.spec,
  };
}

/** An occurrence's key (`scheduleId:dueAt`), made where its jitter is (timing.ts). */
export { occurrenceKey } from "./timing.js";

/** How an occurrence's call id begins; reserved: a model's call id that begins so is renamed (src/run/conversation.ts). */
export const OCCURRENCE_CALL_PREFIX = "sched_";

/** The call id a tool target's occurrence runs under: made from its key, so a repeat finds the call. */
export const occurrenceCallId = (scheduleId: string, dueAt: number) => `${OCCURRENCE_CALL_PREFIX}${scheduleId}_${dueAt}`;

/**
 * What running a schedule's occurrence at once started (src/schedules/run-now.ts): `fired` (its
 * message waits for the thread's turn, or its call ran: read it under `callId`), `queued` (behind
 * the schedule's running occurrence, `overlap: "queue"`), or `skipped` with the `reason` its
 * `overlap` rule gave. `dueAt` (ISO-8601) is when it was asked for, and `key` is `scheduleId:dueAt` in epoch ms.
 */
export interface ScheduleRun {
  scheduleId: string;
  key: string;
  dueAt: string;
  status: "fired" | "queued" | "skipped";
  reason?: "overlap" | "queue_full";
  /** A tool target's call id (`sched_<scheduleId>_<dueAt>`). */
  callId?: string;
}
