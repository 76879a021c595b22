/**
 * The QuickJS executor's deadline where the clock stands still. On Cloudflare, `Date.now()` and
 * `performance.now()` move only between I/O events, never during synchronous work, so inside one
 * CPU-bound stretch the only measure of time is QuickJS's own interrupt checks. They are counted
 * from the last moment the clock moved, at a rate calibrated below every measured rate of
 * interpreted code: such a stretch ends within its deadline in CPU time (code with more checks a
 * millisecond ends earlier), and never past `QUICKJS_STRETCH_CPU_MS`. Where the clock moves
 * (local workerd, tests, any run that awaits), the count restarts each time it does and the clock
 * ends the run at its deadline.
 * @module
 */
import { QUICKJS_STRETCH_CPU_MS } from "./limits.js";

/**
 * Interrupt checks counted as one millisecond of CPU. Measured on the sync build (QuickJS
 * 2025-09-13 on V8, local workerd and Node 22, checks a millisecond): `while (true) {}` 1.9 to
 * 3.3, an `i++` loop 0.6 to 0.8, a `Math.sqrt`/`Math.sin` loop 0.3, a backtracking regex 0.26,
 * `sort` with a comparator 0.16; the asyncify build weft runs makes 0.16x to 0.74x as many (Node
 * 22), so the slowest is about 0.026. Set below it. Loops whose bodies are long native calls check
 * far less often (a loop of small `JSON` round trips about 0.009, string methods about 0.002) and
 * are not bounded by this count: QuickJS checks only every 10,000 loop iterations or calls.
 */
export const INTERRUPTS_PER_MS = 0.02;

/**
 * Checks within one reading of the clock that never end a run: a clock that moves by the
 * millisecond sees a few checks per reading, and must stay the one that ends such a run.
 */
const FREE_CHECKS = 10;

/** Decides at each QuickJS interrupt check whether a run's deadline has passed. */
export class InterruptClock {
  private clockAt: number;
  private checks = 0;
  /** True once the count (not the clock) ended the run. */
  counted = false;

  /** `deadline` in the clock's milliseconds; `now` is the clock (injectable for tests). */
  constructor(
    private readonly deadline: number,
    private readonly now: () => number = () => Date.now(),
  ) {
    this.clockAt = now();
  }

  /** One interrupt check: true when the deadline passed, by the clock or by the count. */
  expired(): boolean {
    const now = this.now();
    if (now > this.deadline) return true;
    if (now !== this.clockAt) {
      this.clockAt = now;
      this.checks = 0;
      return false;
    }
    if (++this.checks <= Math.max(FREE_CHECKS, Math.min(this.deadline - now, QUICKJS_STRETCH_CPU_MS) * INTERRUPTS_PER_MS)) return false;
    this.counted = true;
    return true;
  }

  /** How the count measured the deadline, for the `timeout` message. */
  describe(): string {
    return `counted in QuickJS interrupt checks, ${INTERRUPTS_PER_MS} a millisecond of CPU: the clock stands still during synchronous work`;
  }
}
