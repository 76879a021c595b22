/**
 * DeadlineWatch: many deadlines behind one timer. When the timer fires late (a loaded machine, a
 * busy isolate), every item past its deadline ends, soonest deadline first, whatever order the
 * items were added in.
 */
import { afterEach, expect, it, vi } from "vitest";
import { DeadlineWatch } from "../src/deadlines.js";

afterEach(() => vi.useRealTimers());

/** A watch on a fake clock holding items due in 60, 20 and 40 ms, added in that order; `ended` lists them as they end. */
function watchThree(): { start: number; ended: number[] } {
  vi.useFakeTimers();
  const start = Date.now();
  const watch = new DeadlineWatch<{ deadline: number; expire(): void }>();
  const ended: number[] = [];
  // An item leaves the watch when it ends, as an attempt does.
  for (const ms of [60, 20, 40]) {
    const item = { deadline: start + ms, expire: () => (ended.push(ms), watch.delete(item)) };
    watch.add(item);
  }
  return { start, ended };
}

it("ends the items a late timer finds due in deadline order, not in the order they were added", () => {
  const { start, ended } = watchThree();
  // The timer, set for the soonest deadline (20 ms), fires only after all three have passed.
  vi.setSystemTime(start + 100);
  vi.runOnlyPendingTimers();
  expect(ended).toEqual([20, 40, 60]);
});

it("ends only what is due, and sets itself for the next", () => {
  const { ended } = watchThree();
  vi.advanceTimersByTime(45);
  expect(ended).toEqual([20, 40]);
  vi.advanceTimersByTime(20);
  expect(ended).toEqual([20, 40, 60]);
});
