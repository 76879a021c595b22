/**
 * The shape of a checked schedule, shared by its check (define.ts) and its times (timing.ts).
 * @module
 */

/** What an occurrence does: post `message` to the thread as a user turn, or call `tool` with `input`. */
export type ScheduleTarget = { agent: string; message: string } | { tool: string; input?: unknown };

/** A checked schedule: times in epoch ms, defaults filled in. */
export interface ScheduleSpec {
  /** Five cron fields, evaluated in `timezone`. */
  cron?: string;
  /** The interval of `every`, in ms. */
  everyMs?: number;
  /** The one time of `at`, epoch ms. */
  at?: number;
  /** IANA zone of `cron`. */
  timezone?: string;
  /** What each occurrence does. */
  target: ScheduleTarget;
  /** The `missed` policy. */
  missed: "skip" | "once" | "all";
  /** The `overlap` policy. */
  overlap: "skip" | "queue";
  /** Up to this many ms of delay per occurrence. */
  jitterMs: number;
  /** No occurrence after this time, epoch ms. */
  until?: number;
}

