/**
 * One attempt of a tool's `execute` under its deadline and the run's stop signal. An attempt
 * costs one promise: the `AbortSignal` the tool sees (`context.signal`) is made only when the
 * tool reads it, and fires on a stop or when the deadline passes; the deadlines of a thread's
 * attempts share one timer ({@link Deadlines}).
 * @module
 */

/** How an attempt ended: `execute`'s value or throw, or aborted first (a stop, or the deadline: `reason`). */
export type AttemptEnd = { ok: true; value: unknown; aborted?: false } | { ok: false; error: unknown; aborted?: false } | { aborted: true; reason: unknown };

/** Longest a watch timer is set for: it fires at most this long after the last attempt ends, then stops. */
const WATCH_MS = 1000;

/**
 * The deadlines of a thread's attempts in flight, watched by one timer instead of one per
 * attempt. The timer is set for the soonest deadline but never more than a second ahead, so
 * under load it is set about once a second, and a thread with nothing running has none left
 * within a second.
 */
export class Deadlines {
  private readonly pending = new Set<Attempt>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private timerAt = Number.POSITIVE_INFINITY;

  add(attempt: Attempt): void {
    this.pending.add(attempt);
    if (attempt.deadline < this.timerAt) this.arm(attempt.deadline);
  }

  delete(attempt: Attempt): void {
    this.pending.delete(attempt);
  }

  private arm(at: number): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    const now = Date.now();
    this.timerAt = Math.min(at, now + WATCH_MS);
    this.timer = setTimeout(() => this.fire(), Math.max(0, this.timerAt - now));
  }

  private fire(): void {
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
    const now = Date.now();
    let next = Number.POSITIVE_INFINITY;
    // An attempt that expires leaves the set as it ends (deleting while iterating a Set is safe).
    for (const attempt of this.pending) {
      if (attempt.deadline <= now) attempt.expire();
      else next = Math.min(next, attempt.deadline);
    }
    if (next !== Number.POSITIVE_INFINITY) this.arm(next);
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
