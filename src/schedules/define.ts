/**
 * Schedules as their authors write them: `defineSchedule` for `agents/schedules/<name>.ts` and
 * the one check every way a schedule comes in goes through (a file at build, `state.schedule`
 * from a tool, `POST /threads/:id/schedules`), which turns input into a {@link ScheduleSpec}.
 * @module
 */
import { byteLength, fitsBytes, fitsJsonBytes, jsonTextBytes } from "../bytes.js";
import { WeftError } from "../errors.js";
import { RESERVED_USER_PREFIX, isReservedUserId } from "../ids.js";
import { type ValueRedact, keptValue } from "../kept-text.js";
import { LIMITS, limitOf } from "../limits.js";
import type { ScheduleSpec, ScheduleTarget } from "./spec.js";
import { checkCron, checkZone, shortestInterval } from "./timing.js";

/** A checked schedule, and what each occurrence does (spec.ts). */
export type { ScheduleSpec, ScheduleTarget } from "./spec.js";

/** The shortest interval `every` may have, in milliseconds (one minute, as cron's finest field). */
export const MIN_EVERY_MS = 60_000;
/** The largest `jitterMs`, in milliseconds (one hour). */
export const MAX_JITTER_MS = 3_600_000;
/** The most characters a cron may have (every minute listed one by one takes 170). */
export const MAX_CRON_CHARS = 1024;
/** The longest interval `every` may have, in milliseconds (3,650 days: about ten years). */
export const MAX_EVERY_MS = 3_650 * 86_400_000;
/**
 * The latest time `at` and `until` may name, epoch ms: 2099-12-31T23:59:59.999Z. A Durable Object's
 * alarm cannot be set much later (workerd refuses a date past its clock's range, in the 2200s), and a
 * stored schedule due then would fail every start of its thread.
 */
export const MAX_TIME_MS = Date.UTC(2099, 11, 31, 23, 59, 59, 999);
/** The longest message an agent target may carry, in characters (and never more bytes as stored than a message may take). */
const MAX_MESSAGE_CHARS = 32_000;
/**
 * The most bytes a tool target's `input` may take as stored (JSON text), whatever
 * `WEFT_MAX_TOOL_INPUT_BYTES` allows a direct call: a schedule's input is kept with it and read
 * with every listing, so a page of schedules stays small (64 KiB).
 */
export const MAX_SCHEDULE_INPUT_BYTES = 64 * 1024;

/**
 * What a schedule's target may carry, in bytes as stored (JSON text, escapes counted): a tool's
 * `input` at most `WEFT_MAX_TOOL_INPUT_BYTES` and {@link MAX_SCHEDULE_INPUT_BYTES}, an agent's `message` at most `WEFT_MAX_MESSAGE_BYTES`
 * (the limits of a direct call's input and of a posted message, src/limits.ts).
 */
export interface ScheduleLimits {
  toolInputBytes: number;
  messageBytes: number;
}

/** The limits a deployment sets (its Worker vars); the defaults where `env` is omitted (at build). */
export function scheduleLimitsOf(env?: Readonly<Record<string, unknown>>): ScheduleLimits {
  const toolInputBytes = Math.min(MAX_SCHEDULE_INPUT_BYTES, env ? limitOf(env, "toolInputBytes") : LIMITS.toolInputBytes.default);
  return { toolInputBytes, messageBytes: env ? limitOf(env, "messageBytes") : LIMITS.messageBytes.default };
}

/**
 * A schedule as written: exactly one of `cron` (five fields, evaluated in `timezone`), `every`
 * (milliseconds, or `"90s"`, `"5m"`, `"2h"`, `"1d"`) or `at` (one time: ISO-8601 or epoch ms).
 */
export interface ScheduleOptions {
  /** Five cron fields (minute hour day-of-month month day-of-week), or a nickname such as `@daily`; evaluated in `timezone`. */
  cron?: string;
  /** An interval from the schedule's creation: milliseconds, or `"90s"`, `"5m"`, `"2h"`, `"1d"`; at least one minute (`MIN_EVERY_MS`, 60,000). */
  every?: number | string;
  /** One time: ISO-8601 with a date and a time, or epoch ms; in the future. */
  at?: string | number;
  /** IANA zone (`Europe/Berlin`); required with `cron`, where its wall clock is meant. */
  timezone?: string;
  /** What each occurrence does: `{ tool, input }` or `{ agent, message }`. */
  target: ScheduleTarget;
  /**
   * Occurrences missed while the thread could not run (more than a minute late): `skip` runs none
   * of them, `once` (default) runs the latest, `all` runs the latest 10 (`MAX_CATCH_UP`).
   */
  missed?: "skip" | "once" | "all";
  /** An occurrence due while the schedule's previous one still runs: `skip` (default) or `queue` it. */
  overlap?: "skip" | "queue";
  /** Each occurrence starts up to this many milliseconds late (the same offset for the same occurrence). */
  jitterMs?: number;
  /** No occurrence after this time (ISO-8601 or epoch ms). */
  until?: string | number;
}

/** A schedule file's default export (`agents/schedules/<name>.ts`). */
export interface ScheduleDefinition extends ScheduleOptions {
  /** Always `schedule`: marks the value `defineSchedule` returned. */
  kind: "schedule";
  /**
   * The user whose thread the schedule runs in (one thread per schedule and owner, src/schedules/files.ts):
   * that user reads its events and may cancel it. Default `FILE_SCHEDULE_OWNER` (`weft:schedules`), which only admins read and act on.
   */
  owner?: string;
}

/** The owner of a file schedule's thread when its file names none: a reserved id no credential may name (src/ids.ts). */
export const FILE_SCHEDULE_OWNER = `${RESERVED_USER_PREFIX}schedules`;

/** At most this many missed occurrences run after downtime under `missed: "all"`; older ones are skipped. */
export const MAX_CATCH_UP = 10;

/**
 * Defines a schedule for `agents/schedules/<name>.ts`; checked at build (`npm run build`).
 * @example
 * export default defineSchedule({ cron: "0 9 * * 1-5", timezone: "Europe/Berlin", target: { agent: "support_desk", message: "Send the digest" } });
 */
export function defineSchedule(options: ScheduleOptions & { owner?: string }): ScheduleDefinition {
  return { ...options, kind: "schedule" };
}

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

const bad = (message: string, path: (string | number)[]) => new WeftError("invalid_schedule", message, { path });

/** The number of days in `month` (1-12) of `year`. */
const daysIn = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate();

/**
 * A time as epoch ms from ISO-8601 text or a number, from 0 to {@link MAX_TIME_MS}. A date the
 * calendar does not have (February 30) is refused: `Date.parse` would roll it into March.
 */
function timeOf(value: unknown, path: string[]): number {
  const date = typeof value === "string" ? /^(\d{4})-(\d{2})-(\d{2})T/.exec(value) : null;
  if (date && Number(date[3]) > daysIn(Number(date[1]), Number(date[2]))) throw bad(`${path.join(".")}: ${date[1]}-${date[2]} has no day ${date[3]}`, path);
  const ms = typeof value === "number" ? value : date ? Date.parse(value as string) : NaN;
  if (!Number.isSafeInteger(ms) || ms < 0) throw bad(`${path.join(".")} must be an ISO-8601 time with a date and a time, or epoch milliseconds`, path);
  if (ms > MAX_TIME_MS) throw bad(`${path.join(".")} is past ${new Date(MAX_TIME_MS).toISOString()}, the latest time a schedule may name`, path);
  return ms;
}

/** `every` in milliseconds. */
function everyOf(value: unknown): number {
  const m = typeof value === "string" ? /^(\d+)(ms|s|m|h|d)$/.exec(value) : null;
  const ms = typeof value === "number" ? value : m ? Number(m[1]) * UNITS[m[2]!]! : NaN;
  if (!Number.isSafeInteger(ms)) throw bad('every must be milliseconds or a number with a unit ("90s", "5m", "2h", "1d")', ["every"]);
  if (ms < MIN_EVERY_MS) throw bad(`every must be at least ${MIN_EVERY_MS} ms (one minute)`, ["every"]);
  if (ms > MAX_EVERY_MS) throw bad(`every must be at most ${MAX_EVERY_MS} ms (3,650 days)`, ["every"]);
  return ms;
}

/**
 * Which of a target's names exist, for the target check: true, false (unknown), or the reason a
 * name that exists cannot be a target here (another agent's, or a tool its agent does not offer).
 */
export interface KnownNames {
  agent(name: string): boolean | string;
  tool(name: string): boolean | string;
}

/** The refusal of a target name `known` does not take, or null when it takes it. */
function nameRefused(kind: "agent" | "tool", name: string, answer: boolean | string): WeftError | null {
  if (answer === true) return null;
  return bad(typeof answer === "string" ? answer : `unknown ${kind} ${JSON.stringify(name)}`, ["target", kind]);
}

/**
 * Checks a schedule as written and fills its defaults; `now` (epoch ms) refuses an `at` or
 * `until` in the past (not at build, where `now` is omitted).
 * @throws WeftError `invalid_schedule` (400) with the offending `path`: not exactly one of cron,
 *   every and at; a bad cron or an unknown IANA zone; an interval under one minute; a
 *   time in the past; an unknown agent or tool; a bad policy; a jitter as long as the time between two
 *   occurrences; a cron over {@link MAX_CRON_CHARS} characters; a tool input that is not JSON.
 *   `payload_too_large` (413) with the path and `limit` for a target over `limits` ({@link ScheduleLimits}).
 * @param keep the thread's value redaction: the target's `message` or `input` comes back as it is
 *   stored (`keptValue`: a secret rotated later is not in the row to show, nor handed to what an
 *   occurrence runs), and is measured so. Omitted at build: a file schedule is kept as its file wrote it.
 */
export function checkSchedule(input: unknown, known: KnownNames, now?: number, limits: ScheduleLimits = scheduleLimitsOf(), keep?: ValueRedact): ScheduleSpec {
  if (typeof input !== "object" || input === null || Array.isArray(input)) throw bad("a schedule must be an object", []);
  const o = input as Record<string, unknown>;
  for (const key of Object.keys(o)) {
    if (!["cron", "every", "at", "timezone", "target", "missed", "overlap", "jitterMs", "until", "kind"].includes(key)) throw bad(`unknown field ${key}`, [key]);
  }
  const kinds = (["cron", "every", "at"] as const).filter((k) => o[k] !== undefined);
  if (kinds.length !== 1) throw bad("a schedule needs exactly one of cron, every and at", kinds.length > 1 ? [kinds[1]!] : ["cron"]);
  const spec: ScheduleSpec = { target: checkTarget(o.target, known, limits, keep), missed: "once", overlap: "skip", jitterMs: 0 };
  if (o.timezone !== undefined) {
    if (typeof o.timezone !== "string" || !checkZone(o.timezone)) throw bad(`unknown time zone ${JSON.stringify(o.timezone)}: use an IANA name such as "Europe/Berlin"`, ["timezone"]);
    spec.timezone = o.timezone;
  }
  if (o.cron !== undefined) {
    if (spec.timezone === undefined) throw bad('a cron schedule needs a timezone (an IANA name such as "UTC" or "America/New_York")', ["timezone"]);
    if (typeof o.cron !== "string") throw bad("cron must be a string of five fields", ["cron"]);
    if (o.cron.length > MAX_CRON_CHARS) throw bad(`cron: ${o.cron.length} characters, over the ${MAX_CRON_CHARS} a cron may have`, ["cron"]);
    const problem = checkCron(o.cron, spec.timezone);
    if (problem) throw bad(`bad cron ${JSON.stringify(o.cron)}: ${problem}`, ["cron"]);
    spec.cron = o.cron.trim();
  }
  if (o.every !== undefined) spec.everyMs = everyOf(o.every);
  if (o.at !== undefined) {
    spec.at = timeOf(o.at, ["at"]);
    if (now !== undefined && spec.at <= now) throw bad("at is in the past", ["at"]);
  }
  if (o.until !== undefined) {
    spec.until = timeOf(o.until, ["until"]);
    if (now !== undefined && spec.until <= now) throw bad("until is in the past", ["until"]);
  }
  if (o.missed !== undefined) {
    if (o.missed !== "skip" && o.missed !== "once" && o.missed !== "all") throw bad('missed must be "skip", "once" or "all"', ["missed"]);
    spec.missed = o.missed;
  }
  if (o.overlap !== undefined) {
    if (o.overlap !== "skip" && o.overlap !== "queue") throw bad('overlap must be "skip" or "queue"', ["overlap"]);
    spec.overlap = o.overlap;
  }
  if (o.jitterMs !== undefined) {
    if (!Number.isSafeInteger(o.jitterMs) || (o.jitterMs as number) < 0 || (o.jitterMs as number) > MAX_JITTER_MS) throw bad(`jitterMs must be an integer from 0 to ${MAX_JITTER_MS}`, ["jitterMs"]);
    spec.jitterMs = o.jitterMs as number;
    const interval = shortestInterval(spec, now ?? Date.now());
    if (spec.jitterMs >= interval) throw bad(`jitterMs must be shorter than the ${interval} ms between two occurrences: an occurrence never waits for the next one`, ["jitterMs"]);
  }
  return spec;
}

/** Refuses a target's text over `max` bytes as stored, naming its setting. */
function tooLarge(path: string[], bytes: number, max: number, setting: string): WeftError {
  return new WeftError("payload_too_large", `${path.join(".")}: ${bytes} bytes as stored (JSON), over the ${max}-byte limit (${setting})`, { path, limit: max });
}

function checkTarget(value: unknown, known: KnownNames, limits: ScheduleLimits, keep: ValueRedact | undefined): ScheduleTarget {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw bad("target must be { agent, message } or { tool, input }", ["target"]);
  const t = value as Record<string, unknown>;
  if (typeof t.agent === "string") {
    if (t.tool !== undefined || t.input !== undefined) throw bad("target must be { agent, message } or { tool, input }, not both", ["target"]);
    const refused = nameRefused("agent", t.agent, known.agent(t.agent));
    if (refused) throw refused;
    const message = typeof t.message === "string" ? keptValue(keep, t.message) : t.message;
    if (typeof message !== "string" || message.length === 0 || message.length > MAX_MESSAGE_CHARS) throw bad(`target.message must be text of 1 to ${MAX_MESSAGE_CHARS} characters`, ["target", "message"]);
    if (!fitsJsonBytes(message, limits.messageBytes)) throw tooLarge(["target", "message"], jsonTextBytes(message), limits.messageBytes, "WEFT_MAX_MESSAGE_BYTES");
    return { agent: t.agent, message };
  }
  if (typeof t.tool === "string") {
    if (t.message !== undefined) throw bad("target must be { agent, message } or { tool, input }, not both", ["target"]);
    const refused = nameRefused("tool", t.tool, known.tool(t.tool));
    if (refused) throw refused;
    let input = t.input;
    if (input !== undefined) {
      // The input is stored with the schedule (one row) and sent with each occurrence's call.
      let text: string | undefined;
      try {
        text = JSON.stringify(input);
        // Redacted once it is known to be JSON, and measured as it is kept.
        if (text !== undefined && keep) text = JSON.stringify((input = keptValue(keep, input)));
      } catch {
        text = undefined;
      }
      if (text === undefined) throw bad("target.input must be a JSON value", ["target", "input"]);
      if (!fitsBytes(text, limits.toolInputBytes)) throw tooLarge(["target", "input"], byteLength(text), limits.toolInputBytes, limits.toolInputBytes < MAX_SCHEDULE_INPUT_BYTES ? "WEFT_MAX_TOOL_INPUT_BYTES" : "a schedule's input, 64 KiB");
    }
    return { tool: t.tool, ...(input === undefined ? {} : { input }) };
  }
  throw bad("target must be { agent, message } or { tool, input }", ["target"]);
}

/**
 * The build's check of a schedule file's default export (scripts/registry/evaluate.mjs): the
 * schedule's own rules, with its target looked up in the project's agents and tools.
 * @throws WeftError `invalid_schedule` naming the rule broken.
 */
export function checkScheduleDefinition(name: string, def: unknown, known: KnownNames): ScheduleSpec {
  const d = def as Partial<ScheduleDefinition> | null;
  if (typeof d !== "object" || d === null || d.kind !== "schedule") throw bad(`schedule "${name}": the default export must be the value returned by defineSchedule({...})`, []);
  const { owner, ...rest } = d;
  if (owner !== undefined && (typeof owner !== "string" || owner.length === 0 || owner.length > 256)) throw bad(`schedule "${name}": owner must be a user id of 1 to 256 characters`, ["owner"]);
  // No person is a `weft:` user, and only FILE_SCHEDULE_OWNER is read by admins: any other would fire unseen and unstoppable.
  if (typeof owner === "string" && isReservedUserId(owner) && owner !== FILE_SCHEDULE_OWNER) {
    throw bad(`schedule "${name}": owner ${JSON.stringify(owner)} is reserved for weft (ids starting "${RESERVED_USER_PREFIX}"); name a user, or leave owner out for ${FILE_SCHEDULE_OWNER}`, ["owner"]);
  }
  try {
    return checkSchedule(rest, known);
  } catch (e) {
    if (e instanceof WeftError) throw new WeftError("invalid_schedule", `schedule "${name}": ${e.message}`, e.details);
    throw e;
  }
}
