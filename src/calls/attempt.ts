/**
 * One attempt of a tool's `execute` under its deadline and the run's stop signal. An attempt
 * costs one promise: the `AbortSignal` the tool sees (`context.signal`) is made only when the
 * tool reads it, and fires on a stop or when the deadline passes; the deadlines of a thread's
 * attempts share one timer ({@link Deadlines}).
 * @module
 */
import { DeadlineWatch } from "../deadlines.js";

/** How an attempt ended: `execute`'s value or throw, or aborted first (a stop, or the deadline: `reason`). */
export type AttemptEnd = { ok: true; value: unknown; aborted?: false } | { ok: false; error: unknown; aborted?: false } | { aborted: true; reason: unknown };

/** Longest the deadline timer is set ahead: a thread with nothing running has none left within a second. */
const WATCH_MS = 1000;

/**
 * Microtask turns an attempt runs before the timer is set for its deadline: enough for an
 * `execute` that answers without I/O to end first, so such a call sets no timer.
 */
const DEFER_TURNS = 8;

/** The deadlines of a thread's attempts in flight, on one timer (at most a second ahead). */
export class Deadlines extends DeadlineWatch<Attempt> {
  /** Set by {@link cut}: why every attempt ends, those running then and any asked to start later. */
  cutBy: { reason: unknown } | null = null;

  constructor() {
    super({ maxAheadMs: WATCH_MS, deferTurns: DEFER_TURNS });
  }

  /**
   * Ends every attempt running now with `reason`, as a passed deadline would, and every attempt
   * asked to start from now on before its `execute` runs: the thread is being removed, and what
   * still runs after its grace is cut (`ThreadObject.removeAll`). The watch of a removed thread's
   * engine stays cut; its next lifetime has an engine, and a watch, of its own.
   */
  cut(reason: unknown): void {
    this.cutBy = { reason };
    for (const attempt of this.pending) attempt.cut(reason);
  }
}

/**
 * One attempt. It listens to the run's stop signal as an `EventListener` object (`handleEvent`),
 * so starting one makes no closures beyond the promise's.
 */
export class Attempt {
  /** When the deadline passes (ms since the epoch); set by `run`. */
  deadline = Number.POSITIVE_INFINITY;
  private controller: AbortController | undefined;
  private why: { reason: unknown } | undefined;
  private resolve: ((end: AttemptEnd) => void) | undefined;
  private deadlineError: (() => unknown) | undefined;

  /** `stop`: the run's signal, null outside any run; `deadlines`: the thread's watcher. */
  constructor(
    private readonly stop: AbortSignal | null,
    private readonly deadlines: Deadlines,
  ) {}

  /** The attempt's signal for `context.signal`: aborted with the stop's reason, or the deadline's error. */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.why) this.controller.abort(this.why.reason);
    }
    return this.controller.signal;
  }

  /**
   * Runs `work` until it settles, `timeoutMs` pass (`deadlineError()` is the reason), or the
   * stop fires, whichever comes first; a stop fired before it begins wins.
   */
  run(work: () => Promise<unknown>, timeoutMs: number, deadlineError: () => unknown): Promise<AttemptEnd> {
    return new Promise<AttemptEnd>((resolve) => {
      // The thread is being removed and its calls were cut: this attempt never runs `execute`.
      if (this.deadlines.cutBy !== null) return resolve({ aborted: true, reason: this.deadlines.cutBy.reason });
      this.resolve = resolve;
      this.deadlineError = deadlineError;
      this.deadline = Date.now() + timeoutMs;
      this.deadlines.add(this);
      if (this.stop?.aborted) this.handleEvent();
      else this.stop?.addEventListener("abort", this, { once: true });
      // An async wrapper, so an `execute` that throws before returning a promise is a result too.
      (async () => work())().then(
        (value) => this.end({ ok: true, value }),
        (error: unknown) => this.end({ ok: false, error }),
      );
    });
  }

  /** The run's stop fired. */
  handleEvent(): void {
    this.abort(this.stop!.reason);
  }

  /** The deadline passed (called by {@link Deadlines}). */
  expire(): void {
    this.abort(this.deadlineError!());
  }

  /** The thread's removal cut it (called by {@link Deadlines.cut}): its signal fires with `reason`. */
  cut(reason: unknown): void {
    this.abort(reason);
  }

  private abort(reason: unknown): void {
    if (!this.resolve) return;
    this.why = { reason };
    this.controller?.abort(reason);
    this.end({ aborted: true, reason });
  }

  private end(how: AttemptEnd): void {
    const resolve = this.resolve;
    if (!resolve) return;
    this.resolve = undefined;
    this.deadlines.delete(this);
    this.stop?.removeEventListener("abort", this);
    resolve(how);
  }
}
