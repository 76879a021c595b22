/**
 * When a schedule's occurrences fall. Cron is evaluated by `croner` in the schedule's IANA zone
 * (through `Intl`, which workerd ships with full zone data). Daylight saving, as documented in
 * docs/schedules.md:
 * - a wall time that does not exist on a spring-forward day (02:30 when clocks jump from 02:00
 *   to 03:00) runs once, at the first instant after the gap (03:00 local);
 * - a wall time that happens twice on a fall-back day (01:30 when clocks go from 02:00 back to
 *   01:00) runs once, at its first instant (the earlier, summer-time one).
 * An `every` schedule counts real milliseconds from its creation and ignores zones altogether.
 * @module
 */
import { Cron } from "croner";
import type { ScheduleSpec } from "./spec.js";

/** Whether `zone` is an IANA time zone this runtime knows. */
export function checkZone(zone: string): boolean {
  if (zone.length === 0 || zone.length > 64) return false;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** Cron nicknames croner takes, which are five-field cron all the same. */
const NICKNAMES = new Set(["@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"]);

/**
 * Why `expr` is not a five-field cron (minute hour day-of-month month day-of-week), or null when
 * it is. Seconds and years are refused: the finest step is a minute.
 */
export function checkCron(expr: string, zone: string): string | null {
  const text = expr.trim();
  if (!NICKNAMES.has(text.toLowerCase()) && text.split(/\s+/).length !== 5) return "expected five fields: minute hour day-of-month month day-of-week";
  const impossible = impossibleDay(text);
  if (impossible) return impossible;
  try {
    const cron = new Cron(text, { timezone: zone, paused: true });
    if (cron.nextRun(new Date(0)) === null) return "it never fires";
    return null;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
/** The most days each month can have (February 29 in a leap year). */
const MONTH_DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** The numbers a cron field of plain values, ranges and month names lists, or null for any other field (`*`, steps, `L`...). */
function listed(field: string, names: string[] = []): number[] | null {
  const out: number[] = [];
  for (const item of field.toLowerCase().split(",")) {
    const ends = item.split("-").map((v) => (names.includes(v) ? names.indexOf(v) + 1 : /^\d{1,2}$/.test(v) ? Number(v) : NaN));
    if (ends.length > 2 || ends.some(Number.isNaN)) return null;
    for (let n = ends[0]!; n <= ends.at(-1)!; n++) out.push(n);
  }
  return out;
}

/**
 * Why a cron's day-of-month can never fall in its months (`0 9 30 2 *`: February has no 30th), or
 * null. Refused even beside a day-of-week, which cron ORs with it: such a day is a mistake, and
 * croner would otherwise fire on the weekday alone without a word.
 */
function impossibleDay(text: string): string | null {
  const fields = text.split(/\s+/);
  if (fields.length !== 5) return null;
  const days = listed(fields[2]!);
  const months = listed(fields[3]!, MONTHS);
  if (!days || !months || days.length === 0 || months.length === 0) return null;
  const first = Math.min(...days);
  if (months.some((m) => m >= 1 && m <= 12 && first <= MONTH_DAYS[m - 1]!)) return null;
  return `day-of-month ${first} never falls in ${months.map((m) => MONTHS[m - 1] ?? m).join(", ")}: no such date`;
}

/** Parsed cron patterns, kept per pattern and zone (parsing costs more than a lookup). */
const parsed = new Map<string, Cron>();

function cronOf(expr: string, zone: string): Cron {
  const key = `${zone} ${expr}`;
  let cron = parsed.get(key);
  if (!cron) {
    if (parsed.size > 1000) parsed.clear();
    cron = new Cron(expr, { timezone: zone, paused: true });
    parsed.set(key, cron);
  }
  return cron;
}

/**
 * The first occurrence strictly after `after` (epoch ms), or null when there is none (an `at`
 * passed, `until` passed). `anchor` is when an `every` schedule started counting.
 */
export function nextDue(spec: ScheduleSpec, anchor: number, after: number): number | null {
  let due: number | null;
  if (spec.cron !== undefined) {
    due = cronOf(spec.cron, spec.timezone ?? "UTC").nextRun(new Date(after))?.getTime() ?? null;
  } else if (spec.everyMs !== undefined) {
    const k = after < anchor ? 0 : Math.floor((after - anchor) / spec.everyMs);
    due = anchor + (k + 1) * spec.everyMs;
  } else {
    due = spec.at !== undefined && spec.at > after ? spec.at : null;
  }
  return due !== null && spec.until !== undefined && due > spec.until ? null : due;
}

/**
 * The occurrences due at or before `now` from `first` on, oldest first, at most `limit` of
 * them (the newest `limit` when there are more), with how many older ones were left out and how
 * many cron occurrences were computed to find them (`steps`: the work, at most
 * {@link CRON_WALK} + `limit`).
 */
export function dueThrough(spec: ScheduleSpec, anchor: number, first: number, now: number, limit: number): { due: number[]; dropped: number; steps: number } {
  const due: number[] = [];
  let dropped = 0;
  // Nothing after `until` is due: the window ends there when it passed during downtime.
  const end = spec.until === undefined ? now : Math.min(now, spec.until);
  // `every` jumps straight to the window: downtime of a year costs no loop of a million steps.
  if (spec.everyMs !== undefined && end - first > limit * spec.everyMs) {
    const last = anchor + Math.floor((end - anchor) / spec.everyMs) * spec.everyMs;
    const start = last - (limit - 1) * spec.everyMs;
    dropped = Math.round((start - first) / spec.everyMs);
    for (let d = start; d <= last; d += spec.everyMs) due.push(d);
    return { due, dropped, steps: 0 };
  }
  // Cron: forward from `first` for a bounded number of steps; after longer downtime the window
  // is read backwards from `now` and the steps walked are what is counted as dropped (a floor).
  let d: number | null = first;
  let steps = 0;
  for (; d !== null && d <= now && steps < CRON_WALK; d = nextDue(spec, anchor, d), steps++) {
    due.push(d);
    if (due.length > limit) {
      due.shift();
      dropped++;
    }
  }
  if (d === null || d > now || spec.cron === undefined) return { due, dropped, steps };
  const back = cronOf(spec.cron, spec.timezone ?? "UTC")
    .previousRuns(limit, new Date(end + 1))
    .map((t) => t.getTime())
    .filter((t) => t >= d!)
    .reverse();
  return { due: back, dropped: dropped + due.length, steps: steps + limit };
}

/** How many cron occurrences a catch-up walks forward before it reads its window backwards. */
export const CRON_WALK = 2000;

/** An occurrence's key: `scheduleId:dueAt` (epoch ms), the same however often it is evaluated. */
export const occurrenceKey = (scheduleId: string, dueAt: number) => `${scheduleId}:${dueAt}`;

/** The delay (0 to `jitterMs`, in ms) of the occurrence `key`: the same for every evaluation of it. */
export function jitterOf(key: string, jitterMs: number): number {
  return jitterMs <= 0 ? 0 : fnv1a(key) % (jitterMs + 1);
}

/**
 * When occurrence `due` of schedule `id` fires (epoch ms): `due` delayed by its jitter, held under
 * the time to the next occurrence, so occurrences fire in their order (a schedule keeps one next
 * occurrence; new ones are refused a jitter as long as their interval, `shortestInterval`).
 */
export function fireTimeOf(spec: ScheduleSpec, anchor: number, id: string, due: number): number {
  if (spec.jitterMs <= 0) return due;
  const jitter = jitterOf(occurrenceKey(id, due), spec.jitterMs);
  const next = nextDue(spec, anchor, due);
  return due + (next === null ? jitter : Math.min(jitter, next - due - 1));
}

/** How many occurrences of a cron `shortestInterval` reads. */
const INTERVALS_READ = 64;

/**
 * The shortest time between two occurrences (ms): `every`'s interval, the least of a cron's next
 * {@link INTERVALS_READ} gaps from `from`, Infinity for a single `at`.
 */
export function shortestInterval(spec: ScheduleSpec, from: number): number {
  if (spec.everyMs !== undefined) return spec.everyMs;
  if (spec.cron === undefined) return Number.POSITIVE_INFINITY;
  let shortest = Number.POSITIVE_INFINITY;
  const endless = { ...spec, until: undefined };
  let d = nextDue(endless, from, from);
  for (let i = 0; d !== null && i < INTERVALS_READ; i++) {
    const next = nextDue(endless, from, d);
    if (next !== null) shortest = Math.min(shortest, next - d);
    d = next;
  }
  return shortest;
}

/** FNV-1a of `text` as an unsigned 32-bit integer: stable across restarts, instances and deploys, unlike a random draw. */
export function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}
