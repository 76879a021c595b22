/**
 * The thread's one Durable Object alarm, with the time it is set for kept in memory: every call
 * makes sure an alarm will fire (the watchdog that finishes work a crash cut), and with the time
 * known that costs no storage read. Every set, delete and firing of the alarm goes through here,
 * so the kept time is the stored one.
 * @module
 */
import { MAX_TIME_MS } from "../schedules/define.js";

/** The alarm of one Durable Object instance. */
export class ThreadAlarm {
  /** Epoch ms the alarm is set for; null when none; undefined until read (a new instance). */
  private at: number | null | undefined = undefined;
  /**
   * Whether the alarm set now is the watchdog's own, armed by `ensureBy` in this instance, which a
   * later call may move ahead. An alarm set for work that is due (`set`: recovery after a restart,
   * queued calls, a turn, a scratch thread's end) or found in storage (set before a restart, maybe
   * for the work it cut) is never moved later: moved ahead by every call, it might never fire.
   */
  private renewable = false;
  /** Whether `ensureBy` was asked since the alarm last fired (the thread was in use). */
  private asked = false;

  /** `periodMs`: the watchdog's period (`WEFT_WATCHDOG_MS`), in milliseconds. */
  constructor(
    private readonly storage: DurableObjectStorage,
    readonly periodMs: number,
  ) {}

  /**
   * A call's row is left unfinished: the watchdog is due within one period. When nothing else
   * runs (`alone`), an alarm found due within a quarter period is moved a full period ahead, in
   * the call's own commit, so a thread in steady use never has its alarm fire (each firing costs
   * the runtime's alarm store and the handler more than a move). With another call or a turn
   * running, moving it later could take it past that one's watch. Only an alarm a call armed
   * moves; one due for work (or found after a restart) fires as set.
   */
  watchRow(alone: boolean): void {
    void this.ensureBy(Date.now() + this.periodMs, alone ? (this.periodMs * 3) / 4 : Infinity);
  }

  /**
   * The earliest time the thread's schedules fire (epoch ms), or null: no time this alarm is set
   * for, and no delete, leaves it later than that (src/schedules/ share the one alarm).
   */
  due: () => number | null = () => null;

  /** Makes sure the alarm fires by `at` (epoch ms) and by the schedules' earliest time (see {@link due}). */
  async ensureDue(at = Infinity): Promise<void> {
    await this.load();
    const due = this.due();
    const by = Math.min(at, due ?? Infinity);
    if (by < Infinity && (this.at === null || this.at! > by)) await this.arm(by, false, due);
  }

  /** Sets the alarm for `at` (epoch ms), replacing any other time. */
  set(at: number): Promise<void> {
    return this.arm(at, false);
  }

  /**
   * Arms the watchdog again from the alarm handler, which found nothing due: the thread was in
   * use, so its next calls find the alarm set. Calls may move it ahead, like one they armed.
   */
  rearm(at: number): Promise<void> {
    return this.arm(at, true);
  }

  /** `due`: the schedules' earliest time when the caller has just read it (two queries saved). */
  private arm(at: number, renewable: boolean, due = this.due()): Promise<void> {
    if (due !== null && due < at) [at, renewable] = [due, false];
    // Past what an alarm can name (a row stored before schedules were held to MAX_TIME_MS): wakes at that limit.
    at = Math.min(at, MAX_TIME_MS);
    this.at = at;
    this.renewable = renewable;
    return this.storage.setAlarm(at);
  }

  /** Removes the alarm. */
  delete(): Promise<void> {
    // A schedule still due keeps the alarm.
    const due = this.due();
    if (due !== null) return this.arm(due, false);
    this.at = null;
    return this.storage.deleteAlarm();
  }

  /**
   * The runtime started `alarm()`: the alarm it fired is gone. (An alarm set in the moment between
   * its firing and this call is forgotten here too; the next `ensureBy` then sets it again, which
   * is one write too many, never a missing alarm.)
   */
  fired(): void {
    this.at = null;
    this.asked = false;
  }

  /** Whether an alarm is set; reads storage only the first time. */
  async isSet(): Promise<boolean> {
    await this.load();
    return this.at !== null;
  }

  /** Whether the alarm's time is known in memory, so `ensureBy` sets it without waiting for storage. */
  get known(): boolean {
    return this.at !== undefined;
  }

  /** Reads the stored alarm's time, once per instance. */
  async load(): Promise<void> {
    if (this.at === undefined) this.at = await this.storage.getAlarm();
  }

  /** Whether `ensureBy` was asked since the alarm last fired (the thread was in use). */
  get wanted(): boolean {
    return this.asked;
  }

  /**
   * Makes sure the alarm fires at `by` (epoch ms) at the latest. An earlier alarm stays, unless
   * it is the watchdog's own (see `renewable`) and moving it to `by` puts it at least `renewMs`
   * later: then it is renewed ahead of time, so a thread in steady use keeps its alarm ahead of it
   * and the alarm never fires for nothing.
   */
  ensureBy(by: number, renewMs = Infinity): Promise<void> | undefined {
    this.asked = true;
    if (this.at === undefined) return this.load().then(() => this.ensureBy(by, renewMs));
    // Answered without a promise when the alarm stands (the usual case: nothing to wait for).
    if (this.at === null || this.at > by || (this.renewable && by - this.at >= renewMs)) return this.arm(by, true);
    return undefined;
  }
}
