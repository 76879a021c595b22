/**
 * The owner's account's count of one thread's active schedules (`WEFT_MAX_SCHEDULES_PER_USER`):
 * every change is sent after the one before has been answered, and only in the thread's lifetime
 * it was made in.
 * @module
 */
import { isWeftError } from "../errors.js";
import { removedThread } from "../run/revocable.js";
import type { ScheduleHost } from "./schedule-host.js";
import type { ScheduleStore } from "./store.js";
import { log } from "../log.js";

/** The chain of one thread object's count changes. */
export class ScheduleCount {
  /** The tail of the count changes, each sent to the owner's account after the one before. */
  private tail: Promise<unknown> = Promise.resolve();
  /** Lifetimes of the thread this object has ended (`end`): a count change runs only in its own. */
  private lifetime = 0;

  constructor(
    private readonly store: ScheduleStore,
    private readonly host: ScheduleHost,
  ) {}

  /**
   * Runs `work` after every count change before it has been answered; not at all once its thread
   * is removed (it rejects `thread_not_found` then).
   */
  run<T>(work: () => Promise<T>): Promise<T> {
    const lifetime = this.lifetime;
    const mine = () => (this.lifetime === lifetime ? work() : Promise.reject(removedThread()));
    const run = this.tail.then(mine, mine);
    this.tail = run.catch(() => undefined);
    return run;
  }

  /**
   * Tells the owner's account how many schedules are active here now, after a fall (a cancel, a
   * schedule out of occurrences, a file version ended). Best effort: a notice that fails leaves the
   * account counting more than there are, never fewer, until the next one.
   */
  fell(): void {
    void this.run(async () => {
      const r = this.host.running();
      const userId = r?.world.meta.userId;
      if (!r || !userId || !this.store.ready) return;
      await r.world.peers.countSchedules(userId, r.world.meta.threadId, this.store.activeCount(), Number.MAX_SAFE_INTEGER, r.world.meta.createdAt);
    }).catch((e: unknown) => {
      if (!(isWeftError(e) && e.code === "thread_not_found")) log("error", `weft: could not tell the owner's account how many schedules are active: ${String(e)}`);
    });
  }

  /** The thread was removed: its changes still waiting do nothing, nor hold up one made again on the id. */
  end(): void {
    this.lifetime++;
    this.tail = Promise.resolve();
  }
}
