/**
 * Cancellation of a sandbox run in plain JavaScript. An `AbortController` per run and a listener
 * on it cost microseconds of runtime calls each, as much as a warm isolate run's own work; here a
 * run's cancellation is a flag and a callback, and an outer `AbortSignal` (the tool call's
 * execution) gets one listener however many runs follow it.
 * @module
 */

/** Runs following each outer signal; its one listener cancels them all. */
const followers = new WeakMap<AbortSignal, Set<Cancellation>>();

function cancelFollowers(this: AbortSignal): void {
  const runs = followers.get(this);
  followers.delete(this);
  for (const run of runs ?? []) run.cancel();
}

/** One run's cancellation: `cancel()` once, `onCancel` for the party that ends the run. */
export class Cancellation {
  private done = false;
  private listener: (() => void) | null = null;
  private outer: AbortSignal | undefined;

  /** True once cancelled. */
  get cancelled(): boolean {
    return this.done;
  }

  /** Cancels (once) and calls the listener; a no-op after `release`. */
  cancel(): void {
    if (this.done) return;
    this.done = true;
    const listener = this.listener;
    this.release();
    listener?.();
  }

  /** Also cancels when `signal` aborts (an already aborted signal cancels now). */
  follow(signal: AbortSignal | undefined): this {
    if (!signal) return this;
    if (signal.aborted) {
      this.cancel();
      return this;
    }
    let runs = followers.get(signal);
    if (!runs) {
      followers.set(signal, (runs = new Set()));
      signal.addEventListener("abort", cancelFollowers, { once: true });
    }
    runs.add(this);
    this.outer = signal;
    return this;
  }

  /** Sets the one listener: called on cancel, at once when already cancelled. */
  onCancel(listener: () => void): void {
    if (this.done) listener();
    else this.listener = listener;
  }

  /** Drops the listener and stops following the outer signal: the run has ended. */
  release(): void {
    this.listener = null;
    if (this.outer) followers.get(this.outer)?.delete(this);
    this.outer = undefined;
  }
}
