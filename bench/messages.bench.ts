/**
 * `npm run bench`: getMessages cost against history size, measured inside workerd on the real
 * SQLite storage. Prints numbers; asserts nothing about time (shared machines are noisy).
 */
import { it } from "vitest";
import { createThread, inThread } from "../test/helpers.js";

const SIZES = [100, 100_000];
/** workerd's clock ticks in whole milliseconds, so calls are timed in batches. */
const BATCHES = 25;
const PER_BATCH = 400;

/** Fills a thread with `n` messages (every tenth silent) and times `getMessages(limit=20)` pages. */
async function measure(n: number): Promise<{ medianMs: number; p95Ms: number; fillMs: number }> {
  const id = await createThread();
  return inThread(id, async (instance: any) => {
    const store = instance.store;
    const fillStart = performance.now();
    store.atomically(() => {
      for (let i = 0; i < n; i++) store.messages.append({ role: i % 2 ? "assistant" : "user", content: `message ${i} `.repeat(8), silent: i % 10 === 9 });
    });
    const fillMs = performance.now() - fillStart;
    const { createThreadState } = await import("../src/run/state.js");
    const state = createThreadState(instance.world, undefined, null);
    const samples: number[] = [];
    const pages = [{ limit: 20 }, { limit: 20, order: "desc" as const }, { limit: 20, order: "desc" as const, includeSilent: true }];
    for (let b = -2; b < BATCHES; b++) {
      // Batches -2 and -1 warm the JIT and SQLite's page cache; they are not counted.
      const t0 = performance.now();
      for (let r = 0; r < PER_BATCH; r++) {
        const page = await state.getMessages(pages[r % pages.length]);
        if (page.messages.length !== 20) throw new Error(`expected 20 messages, got ${page.messages.length}`);
      }
      if (b >= 0) samples.push((performance.now() - t0) / PER_BATCH);
    }
    samples.sort((a, b) => a - b);
    return { medianMs: samples[Math.floor(samples.length / 2)]!, p95Ms: samples[Math.floor(samples.length * 0.95)]!, fillMs };
  });
}

it("getMessages cost grows with limit, not with history", async () => {
  const results = new Map<number, Awaited<ReturnType<typeof measure>>>();
  for (const n of SIZES) results.set(n, await measure(n));
  for (const [n, r] of results) {
    console.log(`getMessages limit=20 at ${n}: median ${r.medianMs.toFixed(4)} ms, p95 ${r.p95Ms.toFixed(4)} ms (${BATCHES}x${PER_BATCH} calls; fill ${r.fillMs.toFixed(0)} ms)`);
  }
  const t1 = results.get(100)!.medianMs;
  const t2 = results.get(100_000)!.medianMs;
  console.log(`getMessages limit=20: at 100 ${t1.toFixed(4)} ms, at 100000 ${t2.toFixed(4)} ms, ratio ${(t2 / t1).toFixed(2)}`);
});
