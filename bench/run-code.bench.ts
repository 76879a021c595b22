/**
 * `npm run bench`: what `state.runCode` costs beside a bare Worker Loader call, warm and cold, for
 * each executor, measured side by side in one run inside workerd (a thread's Durable Object).
 * Prints numbers; asserts nothing about time (shared machines are noisy).
 */
import { env } from "cloudflare:workers";
import { it } from "vitest";
import { createThread, inThread } from "../test/helpers.js";
import type { ExecutorName } from "../src/sandbox/executor.js";
import type { ThreadState } from "../src/tools/thread-state.js";

/**
 * workerd's clock may tick in whole milliseconds, so warm calls are timed in batches long enough
 * (about 10 ms) that a tick is a small error, and many of them, interleaved, against machine load.
 */
const WARM_BATCHES = 25;
const PER_BATCH = 100;
const COLD_RUNS = 15;

const BARE_SOURCE = 'import { WorkerEntrypoint } from "cloudflare:workers";\nexport class E extends WorkerEntrypoint { run(x) { return x + 1 } }\nexport default { fetch() { return new Response("") } }';

const loader = () => (env as unknown as { LOADER: WorkerLoader }).LOADER;

/** One bare Worker Loader call: the isolate named `id` (started if new) answers `run(1)`. */
async function bareCall(id: string): Promise<void> {
  const worker = loader().get(id, () => ({ compatibilityDate: "2026-11-02", mainModule: "m.js", modules: { "m.js": BARE_SOURCE }, globalOutbound: null, env: {} }));
  const entry = worker.getEntrypoint("E") as unknown as { run(x: number): Promise<number> };
  if ((await entry.run(1)) !== 2) throw new Error("bare Worker Loader call gave a wrong answer");
}

async function runCodeCall(state: ThreadState, sandbox: ExecutorName, source: string): Promise<void> {
  const out = await state.runCode(source, { sandbox, execute: { fn: "default", args: [1] } });
  if (out.status !== "success" || out.value !== 2) throw new Error(`runCode ${sandbox}: ${out.status} ${out.error ?? JSON.stringify(out.value)}`);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Median per-call time of `a` and `b`, batches interleaved so both see the same machine load. */
async function sideBySide(a: () => Promise<void>, b: () => Promise<void>): Promise<[number, number]> {
  const times: [number[], number[]] = [[], []];
  for (let batch = -2; batch < WARM_BATCHES; batch++) {
    for (const [i, fn] of [a, b].entries()) {
      const t0 = performance.now();
      for (let r = 0; r < PER_BATCH; r++) await fn();
      if (batch >= 0) times[i]!.push((performance.now() - t0) / PER_BATCH);
    }
  }
  return [median(times[0]), median(times[1])];
}

/** Median time of single calls, each on something never run before. */
async function coldSideBySide(a: (n: number) => Promise<void>, b: (n: number) => Promise<void>): Promise<[number, number]> {
  const times: [number[], number[]] = [[], []];
  for (let n = 0; n < COLD_RUNS; n++) {
    for (const [i, fn] of [a, b].entries()) {
      const t0 = performance.now();
      await fn(n);
      times[i]!.push(performance.now() - t0);
    }
  }
  return [median(times[0]), median(times[1])];
}

const line = (kind: string, executor: string, t: number, b: number) =>
  `runCode ${kind}: ${executor} ${t.toFixed(3)} ms, bare Worker Loader ${b.toFixed(3)} ms, ratio ${(t / b).toFixed(2)}`;

it("runCode against a bare Worker Loader call, warm and cold", async () => {
  const id = await createThread();
  const lines = await inThread(id, async (instance: any) => {
    const { createThreadState } = await import("../src/run/state.js");
    const { discardQuickJsEngine } = await import("../src/sandbox/quickjs.js");
    const state = createThreadState(instance.world, undefined, null);
    const out: string[] = [];
    const stamp = `${Date.now()}`;
    for (const sandbox of ["isolate", "quickjs"] as const) {
      const [t, b] = await sideBySide(
        () => runCodeCall(state, sandbox, "export default (x) => x + 1"),
        () => bareCall("bench-bare-warm"),
      );
      out.push(line("warm", sandbox, t, b));
    }
    for (const sandbox of ["isolate", "quickjs"] as const) {
      const [t, b] = await coldSideBySide(
        (n) => {
          // isolate: code never seen starts a new isolate; quickjs: a fresh WebAssembly instance.
          if (sandbox === "quickjs") discardQuickJsEngine();
          return runCodeCall(state, sandbox, `// cold ${stamp} ${sandbox} ${n}\nexport default (x) => x + 1`);
        },
        (n) => bareCall(`bench-bare-cold-${stamp}-${sandbox}-${n}`),
      );
      out.push(line("cold", sandbox, t, b));
    }
    return out;
  });
  console.log(`\n${lines.join("\n")}`);
});
