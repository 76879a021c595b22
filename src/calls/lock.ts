/**
 * The per-call lock: work on one call id never overlaps, so however many requests, alarms,
 * recoveries and decisions arrive together, a call runs (or is recovered) once and the later
 * ones find its result.
 * @module
 */

/** The per-call lock of one lifetime of a thread (the call world's `locks`). */
export interface CallLock {
  /**
   * Runs `work` holding call `callId`, once the work holding it before has settled either way (a
   * failure frees the id too). Work on other ids does not wait. Never call it from inside work
   * that holds the same id: that work would wait for itself.
   */
  hold<T>(callId: string, work: () => Promise<T>): Promise<T>;
}

/** The tails of the work holding each call id of one thread. */
export class CallLocks implements CallLock {
  private readonly tails = new Map<string, Promise<unknown>>();

  /** Runs `work` holding call `callId`, once the work holding it before has settled either way. */
  hold<T>(callId: string, work: () => Promise<T>): Promise<T> {
    const before = this.tails.get(callId);
    // Free (the usual case): the work starts now; it holds the id from its first await on. The
    // next holder waits for this work to settle either way (a failure frees the id too).
    const run = before ? before.then(work, work) : work();
    this.tails.set(callId, run);
    const release = () => this.release(callId, run);
    run.then(release, release);
    return run;
  }

  /** Frees `callId` unless later work holds it now. */
  private release(callId: string, run: Promise<unknown>): void {
    if (this.tails.get(callId) === run) this.tails.delete(callId);
  }
}
