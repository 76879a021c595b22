/**
 * `npm run bench` (schedules): the cost of one schedule firing on a thread holding 10 schedules
 * and one holding 10,000, inside workerd on the real SQLite storage. Each firing finds the due
 * schedule through the due-time index, journals its occurrence, moves it on and runs its call
 * (a small read). Prints `schedule fire at 10 schedules <t1> ms, at 10000 schedules <t2> ms,
 * ratio <t2/t1>`; asserts nothing about time (shared machines are noisy).
 */
import { it } from "vitest";
import { scheduleClock } from "../src/schedules/clock.js";
import { checkSchedule } from "../src/schedules/define.js";
import { createThread, inThread } from "../test/helpers.js";

const T0 = Date.UTC(2030, 0, 1);
const HOUR = 3_600_000;
/** workerd's clock ticks in whole milliseconds, so firings are timed in batches. */
const BATCHES = 9;
const PER_BATCH = 40;

/** Median ms per firing on a thread with `n` schedules (every hour, due one second apart). */
async function measure(n: number): Promise<number> {
  const id = await createThread();
  return inThread(id, async (instance: any) => {
    const store = instance.schedules.store;
    const spec = checkSchedule({ every: "1h", target: { tool: "sum_range", input: { from: 1, to: 2 } } }, { agent: () => true, tool: () => true });
    store.atomically(() => {
      for (let i = 0; i < n; i++) {
        const anchor = T0 + i * 1000;
        store.insert({ id: `sch_${String(i).padStart(6, "0")}`, spec, owner: "tester", status: "active", anchor, nextDue: anchor + HOUR, fireAt: anchor + HOUR, createdAt: anchor });
      }
    });
    const samples: number[] = [];
    try {
      for (let b = -2; b < BATCHES; b++) {
        // Batches -2 and -1 warm the JIT and SQLite's page cache; they are not counted.
        const t0 = performance.now();
        for (let r = 0; r < PER_BATCH; r++) {
          const due = store.earliest();
          scheduleClock.now = () => due;
          await instance.schedules.fire();
        }
        if (b >= 0) samples.push((performance.now() - t0) / PER_BATCH);
      }
    } finally {
      scheduleClock.now = () => Date.now();
    }
    samples.sort((a, b) => a - b);
    return samples[Math.floor(samples.length / 2)]!;
  });
}

it("schedule fire cost against the number of schedules", async () => {
  const small = await measure(10);
  const large = await measure(10_000);
  console.log(`schedule fire at 10 schedules ${small.toFixed(3)} ms, at 10000 schedules ${large.toFixed(3)} ms, ratio ${(large / small).toFixed(2)}`);
});
