/**
 * A thread's schedules at run time: made, cancelled and listed (by a tool's `state`, the HTTP
 * routes, the client), and fired by the thread's alarm. Each occurrence runs exactly once: its
 * journal row (key `scheduleId:dueAt`) commits in one transaction with the schedule's move to
 * its next occurrence and, for an agent target, with the message its turn takes; a tool target's
 * call runs through the call runner under a call id made from the key, so its effect key is
 * `<branch>:sched_<scheduleId>_<dueAt>` and a crash, eviction or second alarm delivery finds the
 * same call (recovered by the effect table, never run again).
 * @module
 */
import { WeftError, echoedValue, isWeftError, quotedValue } from "../errors.js";
import { orderedId } from "../ids.js";
import { directCall } from "../run/direct.js";
import type { TurnRunner } from "../run/turn-runner.js";
import type { RunWorld } from "../run/world.js";
import { removedThread } from "../run/revocable.js";
import { scheduleClock } from "./clock.js";
import { limitOf } from "../limits.js";
import { schedulePage } from "./page.js";
import { MAX_CATCH_UP, type ScheduleSpec, checkSchedule, scheduleLimitsOf } from "./define.js";
import { type ScheduleInfo, type SchedulePage, type SchedulePageOptions, infoOf, occurrenceCallId, occurrenceKey } from "./info.js";
import type { OccurrenceRow, ScheduleRow } from "./rows.js";
import type { ScheduleStore } from "./store.js";
import { CRON_WALK, dueThrough, fireTimeOf, nextDue } from "./timing.js";
import { adoptFile, isFileAdoption } from "./adopt.js";
import type { BackgroundRuns } from "../background/runs.js";
import type { ScheduleHost } from "./schedule-host.js";
import { checkToolInput, endedUnfired, targetNames } from "./target.js";
import { ScheduleCount } from "./count.js";
import { log } from "../log.js";

/** At most this many schedules may be active on one thread. */
export const MAX_SCHEDULES_PER_THREAD = 10_000;
/** An occurrence that fires more than this late (ms) was missed: its `missed` policy decides. */
export const MISSED_GRACE_MS = 60_000;
/**
 * At most this many occurrences of one schedule wait under `overlap: "queue"` (queued tool calls,
 * or an agent target's messages in the inbox); one more is skipped, journaled `skipped` with a
 * `schedule_skipped` event of reason `queue_full`. The same bound as a catch-up's (`MAX_CATCH_UP`).
 */
export const MAX_QUEUED = MAX_CATCH_UP;
/** How many due schedules one alarm fires before it arms itself again at once for the rest. */
const FIRES_PER_ALARM = 200;
/** Cron occurrences one alarm computes before it re-arms at once for the rest (200 day-long catch-ups, `CRON_WALK` each, passed the CPU limit). */
const STEPS_PER_ALARM = 10 * CRON_WALK;
/** How many of its newest occurrences a schedule's journal keeps (older ended ones are forgotten). */
export const OCCURRENCES_KEPT = 500;
/** How long a tool occurrence refused by a busy thread waits before it tries again (ms). */
const BUSY_RETRY_MS = 1_000;
/** After a firing that failed, the alarm waits this long (ms), four times longer after each further failure, up to an hour. */
const FAILED_RETRY_MS = 1_000;

/** The schedules of one thread. */
export class ThreadSchedules {
  /** Firings that failed in a row, and the time (epoch ms) before which no firing is tried again. */
  private failures = 0;
  private backoffUntil = 0;
  /** The owner's account's count of this thread's active schedules. */
  private readonly count: ScheduleCount;

  /**
   * @param runs the thread's background runs (src/background/), which share this alarm: each
   *   firing also looks at the runs due a look, and `restore` arms the alarm for them.
   */
  constructor(
    readonly store: ScheduleStore,
    private readonly host: ScheduleHost,
    readonly runs?: BackgroundRuns,
  ) {
    this.count = new ScheduleCount(store, host);
  }

  private world(): { world: RunWorld; runner: TurnRunner } {
    const r = this.host.running();
    if (!r) throw new WeftError("thread_not_found", "no such thread");
    return r;
  }

  /** The schedules' and runs' scalar queries for a waking thread's one read (`ThreadStore.wake`), so `restore` runs none. */
  wakeSql(): readonly string[] {
    return [...this.store.wakeSql, ...(this.runs?.store.wakeSql ?? [])];
  }

  /** Takes the answers to {@link wakeSql}, in its order. */
  knowAtWake(values: readonly SqlStorageValue[]): void {
    this.store.knowAtWake(values.slice(0, this.store.wakeSql.length));
    this.runs?.store.knowAtWake(values.slice(this.store.wakeSql.length));
  }

  /** Drops what the schedules' and the runs' stores keep in memory; call after `deleteAll`. */
  forget(): void {
    this.store.forget();
    this.runs?.store.forget();
    this.count.end();
  }

  /**
   * Makes a schedule on this thread for `owner` and arms the alarm for its first occurrence. It
   * counts against the thread's owner's limit over all their threads (`WEFT_MAX_SCHEDULES_PER_USER`),
   * asked of their account before anything is stored; a file schedule the deployment takes up is
   * counted but never refused.
   * @throws WeftError `invalid_schedule` (400, with `path`; see {@link checkSchedule}; path `[]` in a
   *   scratch thread, which is removed when its call answers), `invalid_tool_input` (400, with `path`
   *   from `target.input`) for an input the tool's schema refuses, `payload_too_large`
   *   (413, with `path`) for a target over the deployment's limits, `too_many_schedules` (409, with
   *   `limit`, `scope` `thread` or `user`, and `path` `[]`) past {@link MAX_SCHEDULES_PER_THREAD} or
   *   the owner's limit; `agent_not_found` (404) when the thread's agent is no longer deployed.
   *   Nothing is stored then. `stored` gets the answer in the transaction that stores the row.
   */
  async create(input: unknown, owner: string | null, stored?: (info: ScheduleInfo) => void): Promise<ScheduleInfo> {
    const { world } = this.world();
    // The deployment's sync of a file schedule (files.ts); the HTTP body's schema never lets `file` through.
    if (isFileAdoption(input)) {
      const info = await this.count.run(() => adoptFile(this, world, input.file, scheduleClock.now()));
      this.count.fell();
      return info;
    }
    // A scratch thread is removed once its call answers: a schedule there could never fire, and
    // its slot in the owner's count would never come back.
    if (world.meta.ephemeral) {
      throw new WeftError("invalid_schedule", "a scratch thread (a direct call without a thread) is removed when its call answers, so a schedule there would never fire: make it on a thread", { path: [] });
    }
    // Nothing could run it: every occurrence would fail.
    world.requireAgent();
    const now = scheduleClock.now();
    // Its target is kept redacted, and checked against the tool as kept: what each occurrence's call gets.
    // Tool code's (or a person's) input, so its numbers are searched too (Redactor.content).
    const spec = checkSchedule(input, targetNames(world), now, scheduleLimitsOf(world.workerEnv), (value) => world.redactor().content(value));
    if ("tool" in spec.target) checkToolInput(world, spec.target.tool, spec.target.input);
    if (nextDue(spec, now, now) === null) throw new WeftError("invalid_schedule", "the schedule has no occurrence before its until", { path: ["until"] });
    // One count change at a time: the check, the account's answer and the row belong together.
    return this.count.run(async () => {
      // Removed while it waited behind an earlier count change: nothing to count, nothing to store.
      if (world.removed) throw removedThread();
      const active = this.store.activeCount();
      if (active >= MAX_SCHEDULES_PER_THREAD) {
        throw new WeftError("too_many_schedules", `this thread has ${MAX_SCHEDULES_PER_THREAD} active schedules already; cancel one first`, { limit: MAX_SCHEDULES_PER_THREAD, scope: "thread", path: [] });
      }
      const userId = world.meta.userId;
      if (userId) await world.peers.countSchedules(userId, world.meta.threadId, active + 1, limitOf(world.workerEnv, "schedulesPerUser"), world.meta.createdAt);
      try {
        return await this.add(world, orderedId("sch", 8), spec, owner, now, stored);
      } catch (e) {
        this.count.fell();
        throw e;
      }
    });
  }

  /** Stores a checked schedule under `id` as of `now` (epoch ms), announces it and arms the alarm for its first occurrence (`done` at once when it has none). */
  async add(world: RunWorld, id: string, spec: ScheduleSpec, owner: string | null, now: number, stored?: (info: ScheduleInfo) => void): Promise<ScheduleInfo> {
    const first = nextDue(spec, now, now);
    const fireAt = first === null ? null : fireTimeOf(spec, now, id, first);
    const row: ScheduleRow = { id, spec, owner, status: first === null ? "done" : "active", anchor: now, nextDue: first, fireAt, createdAt: now };
    // The store outlives the thread: a request its removal cut (after the account's answer) must not write into one made again on the id.
    if (world.removed) throw removedThread();
    this.store.insert(row);
    const info = infoOf(row);
    stored?.(info);
    world.emit("schedule_created", { schedule: info });
    if (fireAt !== null) await this.host.wakeBy(fireAt);
    return info;
  }

  /**
   * Cancels a schedule: no occurrence of it fires after this, not even one due already and
   * waiting (queued, or journaled by an alarm a crash cut before its call began).
   * @throws WeftError `schedule_not_found` (404) for an id this thread has no schedule for.
   */
  cancel(scheduleId: string): ScheduleInfo {
    const { world } = this.world();
    const now = scheduleClock.now();
    if (!this.store.get(scheduleId)) throw new WeftError("schedule_not_found", `no schedule ${quotedValue(scheduleId)} in this thread`, { scheduleId: echoedValue(scheduleId) });
    if (this.store.atomically(() => this.store.cancel(scheduleId, now))) {
      world.emit("schedule_cancelled", { scheduleId });
      this.count.fell();
    }
    return infoOf(this.store.get(scheduleId)!);
  }

  /** Makes sure the alarm fires by `at` (epoch ms). */
  wakeBy(at: number): Promise<void> {
    return this.host.wakeBy(at);
  }

  /** A page of the thread's schedules ({@link schedulePage}). */
  page(options: SchedulePageOptions = {}): SchedulePage {
    return schedulePage(this.store, options);
  }

  /**
   * After a restart: the alarm is armed for the next due schedule, and at once when a crash left
   * an occurrence open (journaled, its call maybe not begun, or queued behind one): nothing else
   * would find it.
   */
  async restore(): Promise<void> {
    const look = this.runs?.dueAt() ?? null;
    if (look !== null) await this.host.wakeBy(look);
    if (!this.store.ready) return;
    const cut = this.store.open(1).length > 0;
    // A thread without schedules reads nothing more (not even its alarm).
    if (cut || this.store.earliest() !== null) await this.host.wakeBy(cut ? Date.now() + 10 : Infinity);
  }

  /**
   * The alarm's part: fires every occurrence due now, finishes those a crash cut, and arms the
   * alarm for the next one. A firing that fails arms the alarm backed off (1 s, then 4 s, 16 s,
   * ... up to an hour) and throws; the Durable Object logs it and its watchdog goes on.
   */
  async fire(): Promise<void> {
    // A run's child is asked apart: a firing that fails does not hold a completion back.
    const looking = this.runs?.poll().catch((e: unknown) => log("error", `weft: looking at background runs failed: ${String(e)}`));
    try {
      await this.fireDue();
      await looking;
      this.failures = 0;
      this.backoffUntil = 0;
    } catch (e) {
      // Backed off: a schedule due in the past would otherwise arm the alarm for a time already
      // past, and the handler would run again at once, failing the same way, without end.
      this.backoffUntil = Date.now() + Math.min(FAILED_RETRY_MS * 4 ** this.failures++, 3_600_000);
      await this.host.wakeBy(this.backoffUntil);
      throw e;
    }
  }

  /**
   * When the alarm must fire next for the schedules (epoch ms), or null: the earliest due time
   * from the index, but not before the backoff after a failed firing.
   */
  dueAt(): number | null {
    const earliest = this.store.earliest();
    return earliest === null ? null : Math.max(earliest, this.backoffUntil);
  }

  private async fireDue(): Promise<void> {
    const r = this.host.running();
    if (!r || !this.store.ready) return;
    const now = scheduleClock.now();
    const starts: OccurrenceRow[] = [];
    let fired = 0;
    let steps = 0;
    const full = () => fired >= FIRES_PER_ALARM || steps >= STEPS_PER_ALARM;
    // Whether a schedule ended here (out of occurrences, or its file gone): its owner's count falls.
    let ended = false;
    for (let row = this.store.firstDue(now); row && !full(); row = this.store.firstDue(now), fired++) {
      // One that can fire no more (its file dropped by a deploy, its tool now only a model's) ends instead.
      if (endedUnfired(this.store, r.world, row, now)) {
        ended = true;
        continue;
      }
      if (this.host.crash) await this.host.crash("occurrence_due", occurrenceCallId(row.id, row.nextDue!));
      const { starts: started, last, walked } = this.fireOne(r, row, now);
      steps += walked;
      ended ||= last;
      if (this.host.crash) for (const o of started) await this.host.crash("occurrence_journaled", o.callId!);
      starts.push(...started);
    }
    if (ended) this.count.fell();
    await Promise.all([...starts, ...this.leftOpen(starts)].map((o) => this.run(o)));
    const next = full() ? now : this.dueAt();
    if (next !== null) await this.host.wakeBy(next);
  }

  /**
   * Occurrences a crash or a wait left open, to go on: each started one (journaled before a
   * crash, or waiting for a person or a busy thread), and the first queued one of a schedule
   * with none started (its predecessor ended in an instance a crash cut before it started it).
   */
  private leftOpen(starting: OccurrenceRow[]): OccurrenceRow[] {
    const open = this.store.open(FIRES_PER_ALARM);
    const out: OccurrenceRow[] = [];
    const running = new Set([...starting, ...open.filter((o) => o.status === "started")].map((o) => o.scheduleId));
    for (const o of open) {
      if (o.status === "started" && !starting.some((s) => s.key === o.key)) out.push(o);
      else if (o.status === "queued" && !running.has(o.scheduleId)) {
        running.add(o.scheduleId);
        this.store.mark(o.key, "started", scheduleClock.now());
        out.push({ ...o, status: "started" });
      }
    }
    return out;
  }

  /**
   * Fires one due schedule in one transaction: journals the occurrences its `missed` and
   * `overlap` policies run, counts those they skip, and moves it to its next occurrence.
   * @returns the tool occurrences to start now, whether the schedule has none left (it is `done`),
   *   and how many cron occurrences finding the due ones computed.
   */
  private fireOne({ world, runner }: { world: RunWorld; runner: TurnRunner }, row: ScheduleRow, now: number): { starts: OccurrenceRow[]; last: boolean; walked: number } {
    const spec = row.spec;
    const { due, dropped, steps: walked } = dueThrough(spec, row.anchor, row.nextDue!, now, MAX_CATCH_UP);
    // Fired: those whose jittered time has come, in order; the first not yet ready waits.
    const ready: number[] = [];
    const late = new Set<number>();
    for (const d of due) {
      const at = fireTimeOf(spec, row.anchor, row.id, d);
      if (at > now) break;
      ready.push(d);
      if (now - at > MISSED_GRACE_MS) late.add(d);
    }
    const run = spec.missed === "all" ? ready : spec.missed === "once" ? ready.slice(-1) : ready.filter((d) => !late.has(d));
    const missed = dropped + ready.length - run.length;
    // The schedule moves past what it fired, and past what it dropped (counted missed once, here).
    const after = ready.at(-1) ?? (due[0] ?? (dropped > 0 ? now : row.nextDue!)) - 1;
    const next = nextDue(spec, row.anchor, after);
    const fireAt = next === null ? null : fireTimeOf(spec, row.anchor, row.id, next);
    const starts: OccurrenceRow[] = [];
    const skipped: { d: number; reason: "overlap" | "queue_full" }[] = [];
    this.store.atomically(() => {
      // Overlap is judged against occurrences of earlier firings (an open call, a message still
      // waiting for its turn); a catch-up's own run in turn.
      const overlapping = "tool" in spec.target ? this.store.open(1, row.id).length > 0 : this.store.messagesWaiting(row.id) > 0;
      for (const [i, d] of run.entries()) {
        const o = this.journalOne(world, row, d, now, overlapping, i > 0);
        if (o === "overlap" || o === "queue_full") skipped.push({ d, reason: o });
        else if (o?.status === "started") starts.push(o);
      }
      this.store.advance(row.id, next, fireAt, now);
      this.store.prune(row.id, OCCURRENCES_KEPT);
    });
    const firstMissed = ready.find((d) => !run.includes(d)) ?? due[0] ?? row.nextDue!;
    if (missed > 0) world.emit("schedule_skipped", { scheduleId: row.id, reason: "missed", count: missed, dueAt: new Date(firstMissed).toISOString() });
    for (const { d, reason } of skipped) world.emit("schedule_skipped", { scheduleId: row.id, reason, count: 1, dueAt: new Date(d).toISOString() });
    for (const d of run) {
      if (skipped.some((k) => k.d === d)) continue;
      const key = occurrenceKey(row.id, d);
      const callId = "tool" in spec.target ? occurrenceCallId(row.id, d) : undefined;
      world.emit("schedule_fired", { scheduleId: row.id, key, dueAt: new Date(d).toISOString(), ...(callId ? { callId } : {}) });
    }
    if ("agent" in spec.target && run.length > skipped.length) void runner.resume().catch(() => undefined);
    return { starts, last: next === null, walked };
  }

  /**
   * Journals one occurrence (inside a transaction: `fireOne`'s, or run-now.ts's): "overlap" when its policy skips it,
   * "queue_full" when `overlap: "queue"` has {@link MAX_QUEUED} of the schedule's occurrences waiting already.
   */
  journalOne(world: RunWorld, row: ScheduleRow, dueAt: number, now: number, overlapping: boolean, behind: boolean): OccurrenceRow | "overlap" | "queue_full" | null {
    const spec: ScheduleSpec = row.spec;
    const key = occurrenceKey(row.id, dueAt);
    const target = spec.target;
    const skip = (why: "overlap" | "queue_full") => (this.store.journal({ key, scheduleId: row.id, dueAt, status: "skipped", callId: null }, now) ? why : null);
    if ("agent" in target) {
      // An earlier firing's occurrence still runs while its message waits for its turn.
      if (spec.overlap === "skip" && overlapping) return skip("overlap");
      if (this.store.messagesWaiting(row.id) >= MAX_QUEUED) return skip("queue_full");
      const o: OccurrenceRow = { key, scheduleId: row.id, dueAt, status: "done", callId: null };
      // The message commits with the journal row: the turn that takes it is the occurrence's work.
      if (this.store.journal(o, now)) world.store.turns.enqueue({ role: "user", content: target.message, metadata: { scheduleId: row.id, occurrence: key } }, now);
      return o;
    }
    const busy = overlapping || behind;
    if (overlapping && spec.overlap === "skip") return skip("overlap");
    if (busy && this.store.queuedCount(row.id) >= MAX_QUEUED) return skip("queue_full");
    const o: OccurrenceRow = { key, scheduleId: row.id, dueAt, status: busy ? "queued" : "started", callId: occurrenceCallId(row.id, dueAt) };
    return this.store.journal(o, now) ? o : null;
  }

  /**
   * Runs (or finds again) a tool occurrence's call. A final outcome ends the occurrence; one that
   * waits for a person, or a busy thread, leaves it open for a later alarm. Then the schedule's
   * next queued occurrence starts. Also run-now.ts's, for an occurrence asked for at once.
   */
  async run(o: OccurrenceRow): Promise<void> {
    const r = this.host.running();
    const row = this.store.get(o.scheduleId);
    if (!r || !row || !("tool" in row.spec.target) || o.callId === null) return;
    const target = row.spec.target;
    // Cancelled before its call began: it never runs. One that began is the call's to finish.
    if (row.status === "cancelled" && !r.world.store.calls.get(o.callId)) {
      this.store.mark(o.key, "cancelled", scheduleClock.now());
      return;
    }
    try {
      // A refusal (its tool gone, its input no longer valid) is stored as the occurrence's failed call: seen, never lost.
      const call = { toolName: target.tool, input: target.input ?? {}, callId: o.callId, recordRefusal: true };
      const outcome = await this.host.counted(() => directCall(r.world, r.runner, call));
      // Deleted meanwhile: these tables may be a thread's made again on the id since.
      if (r.world.removed || outcome.status === "awaiting_approval" || outcome.status === "parked") return;
      if (this.host.crash) await this.host.crash("occurrence_done", o.callId);
      this.store.mark(o.key, "done", scheduleClock.now(), outcome.status);
    } catch (e) {
      if (r.world.removed) return;
      if (isWeftError(e) && e.code === "session_busy") {
        await this.host.wakeBy(Date.now() + BUSY_RETRY_MS);
        return;
      }
      // Refused before it ran (its tool gone, its input no longer valid): the occurrence ends, its failed call recorded.
      this.store.mark(o.key, "done", scheduleClock.now(), isWeftError(e) ? e.code : "internal_error");
      if (!isWeftError(e)) log("error", `weft: schedule ${o.scheduleId} occurrence ${o.key} failed: ${String(e)}`);
    }
    const queued = this.store.open(1, o.scheduleId)[0];
    if (queued?.status === "queued") {
      this.store.mark(queued.key, "started", scheduleClock.now());
      await this.run({ ...queued, status: "started" });
    }
  }
}
