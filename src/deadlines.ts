/**
 * Many deadlines behind one timer: arming and clearing a timer per deadline costs more than a
 * warm sandbox run or a short tool call. Used for `runCode` runs and for attempts of `execute`.
 * @module
 */

/** Something with a deadline (ms since the epoch) that is ended when it passes. */
export interface Expiring {
  readonly deadline: number;
  expire(): void;
}

/** Options of a {@link DeadlineWatch}. */
export interface DeadlineWatchOptions {
  /**
   * Longest the timer is set ahead (ms): under load it is re-set about this often, and once
   * nothing is open it is gone within this long instead of lasting until the old deadline.
   */
  maxAheadMs?: number;
  /** Called when the timer fires and nothing is open any more (the watch retires). */
  onIdle?: () => void;
  /**
   * Microtask turns a new item waits before the timer is set for it: an item that ends within
   * them (a tool call that answers without I/O) needs no timer at all. Setting one costs ~6 us in
   * workerd, and its firing wakes the object a second later. Default 0: set at once.
   */
  deferTurns?: number;
}

const RESOLVED = Promise.resolve();

/**
 * The deadlines of open items behind one timer. The timer is set for the soonest deadline (at
 * most `maxAheadMs` ahead) and re-set only for an earlier one; when it fires it expires the items
 * past their deadline and sets itself for the next. A timer belongs to the I/O context that set
 * it, so keep one watch per Durable Object.
 */
export class DeadlineWatch<T extends Expiring> {
  /** The open items. */
  protected readonly pending = new Set<T>();
  private armedFor = Infinity;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly options: DeadlineWatchOptions = {}) {}

  add(item: T): void {
    this.pending.add(item);
    if (item.deadline >= this.armedFor) return;
    if (!this.options.deferTurns) this.arm(item.deadline);
    else if (this.turnsLeft === 0) {
      this.turnsLeft = this.options.deferTurns;
      void RESOLVED.then(this.tick);
    }
  }

  /** Turns left before the deferred arming (see `deferTurns`); 0 when none is waiting. */
  private turnsLeft = 0;
  /** A microtask turn of the deferred arming: at the last, the timer is set for the soonest item still open. */
  private readonly tick = (): void => {
    // Everything it waited for ended (the usual read): no more turns; a later item starts its own.
    if (this.pending.size === 0) return void (this.turnsLeft = 0);
    if (--this.turnsLeft > 0) return void RESOLVED.then(this.tick);
    let soonest = Infinity;
    for (const item of this.pending) soonest = Math.min(soonest, item.deadline);
    if (soonest < this.armedFor) this.arm(soonest);
  };

  delete(item: T): void {
    this.pending.delete(item);
  }

  private arm(at: number): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    const now = Date.now();
    this.armedFor = Math.min(at, now + (this.options.maxAheadMs ?? Infinity));
    this.timer = setTimeout(() => this.sweep(), Math.max(0, this.armedFor - now));
  }

  private sweep(): void {
    // The timer fired for `armedFor`; the clock may read a hair earlier.
    const now = Math.max(Date.now(), this.armedFor);
    this.timer = undefined;
    this.armedFor = Infinity;
    let next = Infinity;
    const due: T[] = [];
    for (const item of this.pending) {
      if (item.deadline <= now) due.push(item);
      else next = Math.min(next, item.deadline);
    }
    // A timer that fires late (a loaded isolate) finds several due: they end soonest first, as
    // they would have on time. An item that expires may leave the set meanwhile.
    if (due.length > 1) due.sort((a, b) => a.deadline - b.deadline);
    for (const item of due) item.expire();
    if (next < Infinity) this.arm(next);
    else this.options.onIdle?.();
  }
}
