/**
 * The schedules tables' rows as src/schedules/store.ts reads them, as types only: a schedule's
 * info (src/schedules/info.ts), and weft/client's declarations through it, reach no SQLite code.
 * @module
 */
import type { ScheduleSpec } from "./spec.js";

/** Where a schedule stands: `active` until cancelled or out of occurrences (`done`). */
export type ScheduleStatus = "active" | "cancelled" | "done";

/** One schedule's row. Times are epoch ms. */
export interface ScheduleRow {
  id: string;
  spec: ScheduleSpec;
  /** The user who made it (null: the thread's code, for its owner). */
  owner: string | null;
  status: ScheduleStatus;
  /** When an `every` schedule started counting. */
  anchor: number;
  /** The next occurrence's nominal time (its key's `dueAt`); null when none is left. */
  nextDue: number | null;
  /** When that occurrence fires: `nextDue` plus its jitter. */
  fireAt: number | null;
  createdAt: number;
}

/**
 * An occurrence's journal row: `queued` (waits for the schedule's previous one, overlap
 * `queue`), `started` (its work began or is about to), `done`, `skipped`, `cancelled`.
 */
export interface OccurrenceRow {
  key: string;
  scheduleId: string;
  dueAt: number;
  status: "queued" | "started" | "done" | "skipped" | "cancelled";
  /** The call a tool target runs under (its id is made from the key). */
  callId: string | null;
}
