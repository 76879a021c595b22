/**
 * The settle window: how long held call rows and events may wait in memory for the result that
 * lets each be written once (see `CallStore.hold`, `EventLog.hold`).
 * @module
 */

/**
 * Microtask turns held work waits for a call's result: enough for an `execute` that answers
 * without I/O to settle through the attempt and be recorded.
 */
export const SETTLE_TURNS = 12;
const RESOLVED = Promise.resolve();

/**
 * Settles what is held once the current synchronous work has had {@link SETTLE_TURNS} more
 * microtask turns without it being written otherwise: a read whose `execute` settles within them
 * records its row and events in two statements; one that waits for I/O has them stored first.
 * Either way they are written before the microtask queue drains, so they commit in the same
 * implicit transaction as an insert made now (workerd commits only once JavaScript yields to I/O).
 */
export class SettleWindow {
  private turnsLeft = 0;

  /**
   * @param holding whether anything is still held (once nothing is, the window closes early).
   * @param settle writes everything held; it may throw (the throw is left to the microtask, as before).
   */
  constructor(
    private readonly holding: () => boolean,
    private readonly settle: () => void,
  ) {}

  /** Opens the window again: what is held is written {@link SETTLE_TURNS} microtask turns from now at the latest. */
  open(): void {
    const idle = this.turnsLeft === 0;
    this.turnsLeft = SETTLE_TURNS;
    // A reaction on a settled promise: a microtask turn without leaving V8 (cheaper than queueMicrotask).
    if (idle) void RESOLVED.then(this.tick);
  }

  private readonly tick = (): void => {
    if (!this.holding()) {
      this.turnsLeft = 0;
      return;
    }
    if (--this.turnsLeft > 0) return void RESOLVED.then(this.tick);
    this.settle();
  };
}
