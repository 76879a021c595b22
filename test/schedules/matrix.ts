/**
 * The schedule matrix: threads holding many `every: "5m"` schedules over a mix of effect classes
 * and `missed`/`overlap` policies, driven through virtual time in steps of one period (and now
 * and then a downtime of several), crashed at a random step of a random occurrence, given second
 * alarm deliveries and firings side by side, and cancelled now and then right before an alarm.
 * Shared by test/schedules/matrix.test.ts (small) and `npm run schedule-matrix` (full).
 * Counted independently of the product: what each policy must run is worked out here.
 * @module
 */
import { occurrenceCallId } from "../../src/schedules/info.js";
import { nextDue } from "../../src/schedules/timing.js";
import { checkSchedule } from "../../src/schedules/define.js";
import { CLASSES, type EffectClass, MAY_REPEAT } from "../crash/matrix.js";
import { firedCrashes, planCrashes } from "../crash/plan.js";
import { createThread, inThread, json, effectRuns } from "../helpers.js";
import { MINUTE, T0, deliverAlarm, setClock } from "./helpers.js";

const PERIOD = 5 * MINUTE;
/** Classes the schedules call: a write (never twice), undeclared and reconcilable writes, a read. */
const USED: EffectClass[] = ["write", "undeclared", "reconcilable final", "read"];
/** Steps of an occurrence a crash cuts: the schedule's own and its call's. */
const STEPS = ["occurrence_due", "occurrence_journaled", "before_journal", "after_journal", "inside_execute", "after_effect", "while_recording", "after_result", "occurrence_done"];

/** The run's size and mix. */
export interface MatrixOptions {
  seed: number;
  threads: number;
  schedulesPerThread: number;
  stepsPerThread: number;
  /** Chance of a planned crash at each step. */
  crashRate: number;
  /** Chance that a step is a downtime of 2 to 13 periods. */
  downtimeRate: number;
  /** Chance that a schedule is cancelled at a step, right before the alarm. */
  cancelRate: number;
  /** Chance of a second delivery and two firings side by side after a step. */
  repeatRate: number;
  /** Stop after the thread that reaches both counts (`threads` stays the most). */
  target?: { crashes: number; occurrences: number };
  /** Told after each thread, with the counts so far. */
  progress?: (soFar: MatrixResult, threads: number) => void;
}

/** What the run saw. */
export interface MatrixResult {
  occurrences: number;
  schedules: number;
  crashes: number;
  runTwice: number;
  missedBeyondPolicy: number;
  firedAfterCancel: number;
  problems: string[];
}

/** mulberry32: a small seeded PRNG, so a failing run replays. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Row = { key: string; schedule_id: string; due_at: number; status: string; created_at: number };

/**
 * Delivers alarms until no occurrence is open and no schedule is due (settling parked calls as a
 * person would): the runtime retries an alarm a crash cut within seconds, well inside the minute
 * after which an occurrence counts as missed; virtual time must not move on before that retry.
 */
async function settle(id: string, now: number): Promise<string | null> {
  for (let round = 0; round < 80; round++) {
    const [open, earliest] = await inThread(id, (i) => [i.schedules.store.open(1000), i.schedules.store.earliest()] as [{ key: string; callId: string | null; status: string }[], number | null]);
    if (open.length === 0 && (earliest === null || earliest > now)) return null;
    const calls = await inThread(id, (i) => open.map((o) => (o.callId ? (i.store.calls.get(o.callId)?.status ?? null) : null)));
    for (const [n, status] of calls.entries()) {
      if (status === "parked") await json("POST", `/threads/${id}/calls/${open[n]!.callId}/settle`, { outcome: "failed", error: "outcome unknown: settled by a person" });
    }
    await deliverAlarm(id);
    if (round > 2) await inThread(id, (i) => i.alarm()).catch(() => undefined);
  }
  const left = await inThread(id, (i) => i.schedules.store.open(1000).map((o: { key: string; status: string }) => `${o.key}:${o.status}`));
  return `thread ${id.slice(0, 8)}: still open or due: ${left.join(", ") || "(a schedule due)"}`;
}

/** Plays one thread; adds what it saw to `out`. */
async function playThread(random: () => number, o: MatrixOptions, out: MatrixResult): Promise<void> {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  setClock(T0);
  const id = await createThread({ agent: "guarantees" });
  const made: { id: string; cls: EffectClass; missed: "skip" | "once" | "all" }[] = [];
  for (let n = 0; n < o.schedulesPerThread; n++) {
    const cls = pick(USED);
    const missed = pick(["skip", "once", "all"] as const);
    const s = await inThread(id, (i) => i.schedules.create({ every: "5m", missed, overlap: pick(["skip", "queue"]), target: { tool: CLASSES[cls], input: { label: `s${n}` } } }, "tester"));
    made.push({ id: s.scheduleId, cls, missed });
  }
  out.schedules += made.length;
  const expected = new Map(made.map((s) => [s.id, 0]));
  const cancelledAt = new Map<string, number>();
  let period = 0;
  for (let step = 0; step < o.stepsPerThread; step++) {
    const jump = random() < o.downtimeRate ? 2 + Math.floor(random() * 12) : 1;
    period += jump;
    const now = T0 + period * PERIOD;
    setClock(now);
    const active = made.filter((s) => !cancelledAt.has(s.id));
    if (active.length > 1 && random() < o.cancelRate) {
      const victim = pick(active);
      await inThread(id, (i) => i.schedules.cancel(victim.id));
      cancelledAt.set(victim.id, now);
    }
    for (const s of made) if (!cancelledAt.has(s.id)) expected.set(s.id, expected.get(s.id)! + (s.missed === "all" ? Math.min(jump, 10) : 1));
    const before = firedCrashes(id).length;
    if (random() < o.crashRate) {
      const s = pick(made);
      const point = pick(STEPS);
      // occurrence_due names the first occurrence due; the rest the one each policy runs last.
      const due = point === "occurrence_due" ? now - (jump - 1) * PERIOD : now;
      planCrashes(id, [{ point, callId: occurrenceCallId(s.id, due) }]);
    }
    await deliverAlarm(id);
    const stuck = await settle(id, now);
    if (stuck) out.problems.push(stuck);
    if (random() < o.repeatRate) await Promise.all([deliverAlarm(id), inThread(id, (i) => i.schedules.fire()), inThread(id, (i) => i.schedules.fire())]);
    out.crashes += firedCrashes(id).length - before;
    planCrashes(id, []);
  }
  const rows = await inThread(id, (i) => i.ctx.storage.sql.exec("SELECT key, schedule_id, due_at, status, created_at FROM occurrences").toArray() as Row[]);
  for (const s of made) {
    const mine = rows.filter((r) => r.schedule_id === s.id);
    const want = expected.get(s.id)!;
    if (mine.length < want) out.missedBeyondPolicy += want - mine.length;
    if (mine.length > want) out.problems.push(`schedule ${s.id}: ${mine.length} occurrences journaled, its policy allows ${want}`);
    const cancel = cancelledAt.get(s.id);
    out.firedAfterCancel += mine.filter((r) => cancel !== undefined && r.created_at >= cancel && r.status !== "cancelled").length;
    for (const r of mine) {
      if (r.status !== "done") continue;
      out.occurrences++;
      const { runs } = await effectRuns(id, occurrenceCallId(s.id, r.due_at));
      if (runs > 1 && !MAY_REPEAT.has(s.cls)) {
        out.runTwice++;
        out.problems.push(`${s.cls} occurrence ${r.key} ran ${runs} times`);
      }
    }
  }
  // Every call a schedule made belongs to a journaled occurrence: no call beside the journal.
  const calls = await inThread(id, (i) => i.ctx.storage.sql.exec("SELECT call_id FROM calls WHERE call_id LIKE 'sched_%'").toArray() as { call_id: string }[]);
  const keys = new Set(rows.map((r) => occurrenceCallId(r.schedule_id, r.due_at)));
  for (const c of calls) if (!keys.has(c.call_id)) out.problems.push(`call ${c.call_id} has no occurrence`);
}

/** Runs the matrix; the clock is given back to `Date.now` at the end. */
export async function runMatrix(o: MatrixOptions): Promise<MatrixResult> {
  const random = prng(o.seed);
  const out: MatrixResult = { occurrences: 0, schedules: 0, crashes: 0, runTwice: 0, missedBeyondPolicy: 0, firedAfterCancel: 0, problems: [] };
  try {
    for (let t = 0; t < o.threads; t++) {
      await playThread(random, o, out);
      o.progress?.(out, t + 1);
      if (o.target && out.crashes >= o.target.crashes && out.occurrences >= o.target.occurrences) break;
    }
  } finally {
    setClock(null);
  }
  return out;
}

/** The closing line `npm run schedule-matrix` prints. */
export function matrixLine(r: MatrixResult): string {
  return `schedule-matrix: ${r.occurrences} occurrences over ${r.schedules} schedules, ${r.crashes} crashes, ${r.runTwice} run twice, ${r.missedBeyondPolicy} missed beyond policy, ${r.firedAfterCancel} fired after cancel`;
}

/** Daylight-saving days: [zone, spring-forward day, fall-back day] in 2030. */
const DST_DAYS = [
  ["America/New_York", "2030-03-10", "2030-11-03"],
  ["Europe/Berlin", "2030-03-31", "2030-10-27"],
  ["Australia/Sydney", "2030-10-06", "2030-04-07"],
] as const;

/**
 * The DST section: for each zone, daily crons at every half hour of the night (00:00 to 03:30)
 * across its spring-forward and fall-back days, counted per local day: each must run once a day.
 * @returns one line per zone and day, and the problems found.
 */
export function dstSection(): { lines: string[]; problems: string[] } {
  const lines: string[] = [];
  const problems: string[] = [];
  const known = { agent: () => true, tool: () => true };
  for (const [zone, spring, fall] of DST_DAYS) {
    const day = new Intl.DateTimeFormat("en-CA", { timeZone: zone, dateStyle: "short" });
    const clock = new Intl.DateTimeFormat("en-GB", { timeZone: zone, hour: "2-digit", minute: "2-digit", timeZoneName: "shortOffset" });
    for (const [label, date] of [["spring-forward", spring], ["fall-back", fall]] as const) {
      const runs: string[] = [];
      for (const [h, m] of [0, 1, 2, 3].flatMap((hour) => [[hour, 0], [hour, 30]] as const)) {
        const spec = checkSchedule({ cron: `${m} ${h} * * *`, timezone: zone, target: { tool: "t" } }, known);
        const from = Date.parse(`${date}T00:00:00Z`) - 3 * 86_400_000;
        let count = 0;
        let at = "";
        for (let t = nextDue(spec, 0, from); t !== null && t < from + 6 * 86_400_000; t = nextDue(spec, 0, t)) {
          if (day.format(new Date(t)) !== date) continue;
          count++;
          at = clock.format(new Date(t));
        }
        if (count !== 1) problems.push(`${zone} ${label} ${date}: ${h}:${String(m).padStart(2, "0")} ran ${count} times`);
        runs.push(`${h}:${String(m).padStart(2, "0")}->${at}`);
      }
      lines.push(`dst: ${zone} ${label} ${date}: each once: ${runs.join(" ")}`);
    }
  }
  return { lines, problems };
}
