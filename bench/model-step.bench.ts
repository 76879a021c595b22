/**
 * `npm run bench`: the cost of one full scripted model step with one tool call (history window,
 * request, dispatch, results committed) against history size, measured inside workerd on the real
 * SQLite storage. The two threads are measured alternately, side by side in one run. Prints
 * numbers; asserts nothing about time.
 */
import { it } from "vitest";
import { normalizeScript } from "../src/models/scripted.js";
import { createThread, inThread, json, stubOf } from "../test/helpers.js";

const SIZES = [100, 100_000] as const;
/** Timed samples per size, and turns per sample (workerd's clock ticks in whole milliseconds). */
const SAMPLES = 11;
const TURNS_PER_SAMPLE = 4;

/**
 * Stores `n` messages in one bulk insert (one statement, alternating user and assistant text), as a
 * long conversation would have left them (visible messages at depth 0 need no counter).
 */
async function seed(id: string, n: number): Promise<number> {
  return inThread(id, (instance) => {
    const t0 = performance.now();
    const { store } = instance;
    store.atomically(() => {
      store.storage.sql.exec(
        `WITH RECURSIVE seq(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM seq WHERE i + 1 < ?)
         INSERT INTO messages (role, content, silent, depth, created_at)
         SELECT CASE i % 2 WHEN 0 THEN 'user' ELSE 'assistant' END, replace(hex(zeroblob(8)), '00', 'message ' || i || ' '), 0, 0, ? FROM seq`,
        n,
        Date.now(),
      );
    });
    return performance.now() - t0;
  });
}

let turn = 0;
/** Runs `TURNS_PER_SAMPLE` turns of one model step with one `person` call; returns ms per turn. */
async function sample(id: string): Promise<number> {
  return inThread(id, async (instance) => {
    const t0 = performance.now();
    for (let i = 0; i < TURNS_PER_SAMPLE; i++) {
      turn += 1;
      const script = normalizeScript([{ toolCalls: [{ id: `c${turn}`, name: "person", arguments: { name: "Ada", age: 36 } }] }]);
      instance.runner.postMessage({ content: `step ${turn}`, script });
      await instance.runner.idle();
    }
    return (performance.now() - t0) / TURNS_PER_SAMPLE;
  });
}

/** The history part of a step alone: ms per read of the request window (with its summary), in a batch. */
async function windowRead(id: string): Promise<{ ms: number; messages: number }> {
  return inThread(id, async (instance) => {
    const { conversationWindow } = await import("../src/run/history.js");
    const { createScriptedModel } = await import("../src/models/scripted.js");
    const model = createScriptedModel({ next: () => undefined });
    let messages = 0;
    const t0 = performance.now();
    for (let i = 0; i < 200; i++) messages = conversationWindow(instance.world, model).length;
    return { ms: (performance.now() - t0) / 200, messages };
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

it("a model step costs what its window costs, not what the history holds", async () => {
  const threads = new Map<number, { id: string; fillMs: number; samples: number[] }>();
  for (const n of SIZES) {
    const id = await createThread({ agent: "stepper" });
    const fillMs = await seed(id, n);
    // A first turn through the API attaches the runner, and compacts what the window cannot hold.
    await json("POST", `/threads/${id}/messages`, { content: "warm up", script: [{ toolCalls: [{ id: "w", name: "person", arguments: { name: "A", age: 1 } }] }] });
    await stubOf(id).waitIdle();
    await sample(id);
    threads.set(n, { id, fillMs, samples: [] });
  }
  for (let s = 0; s < SAMPLES; s++) for (const n of SIZES) threads.get(n)!.samples.push(await sample(threads.get(n)!.id));
  for (const [n, t] of threads) {
    const check = await inThread(t.id, (instance) => ({
      messages: instance.store.messages.count(),
      failed: instance.store.turns.latest()?.status,
      summary: instance.store.summaries.latest()?.messages ?? 0,
    }));
    console.log(
      `model step at ${n}: median ${median(t.samples).toFixed(2)} ms (${SAMPLES}x${TURNS_PER_SAMPLE} turns; fill ${t.fillMs.toFixed(0)} ms; ${check.messages} messages, ${check.summary} summarized; last turn ${check.failed})`,
    );
  }
  const w1 = await windowRead(threads.get(100)!.id);
  const w2 = await windowRead(threads.get(100_000)!.id);
  console.log(`history window read at 100 messages ${w1.ms.toFixed(3)} ms (${w1.messages} sent), at 100000 messages ${w2.ms.toFixed(3)} ms (${w2.messages} sent)`);
  const t1 = median(threads.get(100)!.samples);
  const t2 = median(threads.get(100_000)!.samples);
  console.log(`model step at 100 messages ${t1.toFixed(2)} ms, at 100000 messages ${t2.toFixed(2)} ms, ratio ${(t2 / t1).toFixed(2)}`);
});
