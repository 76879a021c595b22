/**
 * Removing a thread while work runs in it (`DELETE /threads/:id`, a scratch thread's end): the
 * calls a removal waits for, how long it waits, and what a call it had to cut short answers.
 * @module
 */
import { DELETE_GRACE_MS, integerSetting } from "../config.js";
import { WeftError } from "../errors.js";
import type { Deadlines } from "../calls/attempt.js";
import { noSuchThread } from "./guard.js";

/**
 * After the cut, how long removal waits for the cut calls to record their end and answer before it
 * deletes the rows anyway (ms). Only code that ignores its `signal` outside `execute` (a hook, a
 * predicate, a `lookup`) takes this long: a cut attempt ends at once.
 */
export const CUT_SETTLE_MS = 1_000;

/** `WEFT_DELETE_GRACE_MS` (a non-negative integer of milliseconds), else {@link DELETE_GRACE_MS}. */
export function deleteGraceMs(env: Readonly<Record<string, unknown>>): number {
  return integerSetting(env, "WEFT_DELETE_GRACE_MS", 0) ?? DELETE_GRACE_MS;
}

/**
 * What a call still running when its thread's removal ended the grace answers: 404
 * `thread_not_found` (the thread is gone) with `details.deleted`, since unlike a thread that never
 * existed, the call may have had an effect.
 */
export function cutByRemoval(): WeftError {
  return new WeftError(
    "thread_not_found",
    "the thread was deleted while this call ran: it was still running when the deletion's grace period (WEFT_DELETE_GRACE_MS) ended, so it was cut short and its outcome is unknown (a write may have taken effect); its record was deleted with the thread",
    { deleted: true },
  );
}

/** Resolves true once `work` settles (either way), or false once `ms` pass first. */
export function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    const done = () => {
      clearTimeout(timer);
      resolve(true);
    };
    work.then(done, done);
  });
}

/**
 * The calls running in a thread's instance that a removal waits for (direct calls, and runs a
 * person's decision started), and the removal under way. Counting costs a call two integer
 * updates and no allocation.
 */
export class InFlight {
  /** Calls running now (see `run`). */
  count = 0;
  /** The removal under way (`remove`), from its first step until it ends. */
  removing: Promise<void> | null = null;
  /** Removals that ended in this instance (either way): each unlisted its thread from the owner's account. */
  removals = 0;
  /** Called when `count` falls to 0 while a removal waits for it. */
  private drained: (() => void) | null = null;
  /** Removals that cut calls short: a call that sees it change while it ran was cut. */
  private cuts = 0;
  /** Lifetimes of the thread ended in this instance (`detach`): a call counts only in its own. */
  private lifetimes = 0;

  /**
   * Runs `work` counted. A call that comes once a removal began never starts (`thread_not_found`,
   * as for a thread never made); one the removal cut short answers {@link cutByRemoval}, whatever
   * its own end was.
   */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.removing !== null) throw noSuchThread();
    const cuts = this.cuts;
    const lifetime = this.lifetimes;
    this.count++;
    let value: T;
    try {
      value = await work();
    } catch (e) {
      throw this.cuts === cuts ? e : cutByRemoval();
    } finally {
      if (this.lifetimes === lifetime && --this.count === 0 && this.drained !== null) this.drained();
    }
    if (this.cuts !== cuts) throw cutByRemoval();
    return value;
  }

  /**
   * {@link run} around `commits.batched(work)`: counted while it waits for the thread's running
   * commit too, so a removal that begins meanwhile waits for it (or it is refused), never deletes
   * the rows under it.
   */
  runBatched<T>(commits: { batched<U>(work: () => Promise<U>): Promise<U> }, work: () => Promise<T>): Promise<T> {
    return this.run(() => commits.batched(work));
  }

  /** Runs `removal` unless one is under way already; either way resolves when that one ends. */
  remove(removal: () => Promise<void>): Promise<void> {
    if (this.removing === null) {
      const removing = removal();
      this.removing = removing;
      const ended = () => {
        this.removals++;
        if (this.removing === removing) this.removing = null;
      };
      removing.then(ended, ended);
    }
    return this.removing;
  }

  /**
   * Waits up to `graceMs` for the counted calls and `other` (the turn runner's work) to settle.
   * Then, if anything still runs, cuts it: every attempt on `deadlines` ends (and any asked to
   * start later, before its `execute` runs), every counted call still running answers
   * {@link cutByRemoval}, and the cut calls get {@link CUT_SETTLE_MS} more to record their end.
   */
  async drain(other: () => Promise<unknown>, deadlines: Deadlines | undefined, graceMs: number): Promise<void> {
    // `other` failing says nothing about the calls: it counts as settled, and they are still waited for.
    const running = () => Promise.all([this.settled(), other().catch(() => undefined)]);
    if (await settlesWithin(running(), graceMs)) return;
    this.cuts++;
    deadlines?.cut(cutByRemoval());
    await settlesWithin(running(), CUT_SETTLE_MS);
  }

  /** Stops counting what still runs: its thread's rows are gone, and one made again on the id does not wait for it. */
  detach(): void {
    this.lifetimes++;
    this.count = 0;
    this.drained = null;
  }

  /** Resolves once no counted call runs. */
  private settled(): Promise<void> {
    if (this.count === 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.drained = () => {
        this.drained = null;
        resolve();
      };
    });
  }
}
