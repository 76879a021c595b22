/**
 * A running sandbox leaves its thread free: while a run works (in slices that yield, the only kind
 * local workerd can interleave), a GET of the thread is answered and `POST /threads/:id/stop`
 * ends the run within 100 ms. The same holds during a synchronous CPU-bound QuickJS run (a loop,
 * a recursion), which gives the thread back between slices (src/sandbox/yields.ts). The times are
 * held to those bounds under `npm run sandbox`; npm test allows a loaded machine's more (bounds.ts).
 */
import { afterAll, describe, expect, it } from "vitest";
import { callsOf, createThread, inThread, json, stubOf } from "../helpers.js";
import { within } from "./bounds.js";

/**
 * The deadline of the runs stopped here: far past every bound below, so a thread the run held,
 * or a stop that did not end it, shows as the run ending at its deadline instead.
 */
const RUN_DEADLINE_MS = 60_000;

const lines: string[] = [];

/** Synchronous CPU-bound code that never awaits: a pure loop computing, and recursion doing work. */
const SYNCHRONOUS = {
  "pure loop": "export default () => { let x = 0; for (let i = 0; ; i++) x = (x * 31 + i) % 1000003; return x; }",
  "recursive function": "const fib = (n) => (n < 2 ? n : fib(n - 1) + fib(n - 2)); export default () => fib(45)",
};

/** Busy in slices of a few milliseconds, awaiting a timer between them; never returns. */
const WORKING = "export default async () => { let n = 0; for (;;) { for (let i = 0; i < 20000; i++) n = (n + i) | 0; await new Promise((r) => setTimeout(r, 1)) } }";

async function until<T>(probe: () => Promise<T | undefined>, what: string): Promise<T> {
  for (let i = 0; i < 500; i++) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/**
 * Starts `source` as a scripted `run_code` call, and well inside the run (a stop sent before the
 * code begins would prove nothing) times a GET of the thread and `POST /threads/:id/stop`, then
 * waits for the thread to be idle. Returns the timings and the call's record.
 */
async function stopDuringRun(source: string, sandbox: "quickjs" | "isolate") {
  const id = await createThread({ agent: "sandboxed" });
  await json("POST", `/threads/${id}/messages`, {
    content: "go",
    script: [{ toolCalls: [{ id: "code", name: "run_code", arguments: { source, sandbox, timeoutMs: RUN_DEADLINE_MS } }] }, { text: "done" }],
  });
  await until(async () => ((await callsOf(id)).find((c) => c.callId === "code" && c.status === "started") ? true : undefined), "the run to start");
  await new Promise((r) => setTimeout(r, 100));
  const g0 = performance.now();
  const get = await json("GET", `/threads/${id}/messages?limit=1`);
  const getMs = performance.now() - g0;
  expect(get.status).toBe(200);
  const s0 = performance.now();
  const stop = await json("POST", `/threads/${id}/stop`);
  const stopMs = performance.now() - s0;
  expect(stop.body).toEqual({ stopped: true });
  await stubOf(id).waitIdle();
  const endedMs = performance.now() - s0;
  return { getMs, stopMs, endedMs, call: (await callsOf(id)).find((c) => c.callId === "code") };
}

describe("stop during a sandbox run", () => {
  for (const sandbox of ["quickjs", "isolate"] as const) {
    it(`${sandbox}: during a working run a GET is answered and POST stop ends the run`, async () => {
      const { getMs, stopMs, endedMs, call } = await stopDuringRun(WORKING, sandbox);
      lines.push(`sandbox: ${sandbox} during a run: GET answered in ${getMs.toFixed(0)} ms, stop answered in ${stopMs.toFixed(0)} ms, run ended in ${endedMs.toFixed(0)} ms`);
      // Stopped midway, a call of undeclared effect is parked (it may have acted), never run again.
      expect(call).toMatchObject({ status: "parked" });
      // Over HTTP on a shared machine a plain GET alone can take tens of milliseconds: the 100 ms
      // bound is asserted on the cancellation path itself, below.
      expect(getMs).toBeLessThan(within(1000));
      expect(endedMs).toBeLessThan(within(1000));
    }, 120_000);

    it(`${sandbox}: the cancellation stop uses ends a working run within 100 ms`, async () => {
      const id = await createThread();
      const { status, ms } = await inThread(id, async (instance: any) => {
        const { createThreadState } = await import("../../src/run/state.js");
        // A stop aborts the signal of the execution the call belongs to; runCode follows it.
        const execution = new AbortController();
        const state = createThreadState(instance.world, { callId: "call_stop", tool: instance.world.catalog.get("run_code") }, { signal: execution.signal } as any);
        const handle = state.runCode(WORKING, { sandbox, timeoutMs: RUN_DEADLINE_MS });
        await new Promise((r) => setTimeout(r, 100));
        const t0 = performance.now();
        execution.abort();
        const out = await handle.result;
        return { status: out.status, ms: performance.now() - t0 };
      });
      lines.push(`sandbox: ${sandbox} stop's cancellation ended a working run in ${ms.toFixed(1)} ms (${status})`);
      expect(status).toBe("cancelled");
      expect(ms).toBeLessThan(within(100));
    }, 120_000);
  }

  for (const [shape, source] of Object.entries(SYNCHRONOUS)) {
    it(`quickjs: during a synchronous CPU-bound run (${shape}) a GET is answered and POST stop ends the run`, async () => {
      const { getMs, stopMs, endedMs, call } = await stopDuringRun(source, "quickjs");
      lines.push(`sandbox: quickjs during a synchronous ${shape}: GET answered in ${getMs.toFixed(0)} ms, stop answered in ${stopMs.toFixed(0)} ms, run ended in ${endedMs.toFixed(0)} ms`);
      expect(call).toMatchObject({ status: "parked" });
      // A thread held by the run would answer only after the run's deadline.
      expect(getMs).toBeLessThan(within(1000));
      expect(endedMs).toBeLessThan(within(1000));
    }, 120_000);

    it(`quickjs: the cancellation stop uses ends a synchronous CPU-bound run (${shape}) within 100 ms`, async () => {
      const id = await createThread();
      const { status, ms, abortedAt } = await inThread(id, async (instance: any) => {
        const { createThreadState } = await import("../../src/run/state.js");
        const execution = new AbortController();
        const state = createThreadState(instance.world, { callId: "call_sync_stop", tool: instance.world.catalog.get("run_code") }, { signal: execution.signal } as any);
        const r0 = performance.now();
        const handle = state.runCode(source, { sandbox: "quickjs", timeoutMs: RUN_DEADLINE_MS });
        // A timer of the thread itself: it fires only if the run gives the thread back.
        await new Promise((r) => setTimeout(r, 100));
        const t0 = performance.now();
        execution.abort();
        const out = await handle.result;
        return { status: out.status, ms: performance.now() - t0, abortedAt: t0 - r0 };
      });
      lines.push(`sandbox: quickjs stop's cancellation ended a synchronous ${shape} in ${ms.toFixed(1)} ms (${status}; the thread's 100 ms timer fired at ${abortedAt.toFixed(0)} ms)`);
      expect(abortedAt).toBeLessThan(within(1000));
      expect(status).toBe("cancelled");
      expect(ms).toBeLessThan(within(100));
    }, 120_000);
  }

  it("quickjs: a synchronous CPU-bound run that yields still ends at its deadline, and so does one that defeats its yields", async () => {
    const id = await createThread();
    // Reads the counter's name from its own instrumented text and keeps the counter from running out.
    const defeat = "export default function f() { const name = String(f).match(/__weft_ticks\\d*/)[0]; for (;;) eval(name + ' = 1e15'); }";
    const outs = await inThread(id, async (instance: any) => {
      const { createThreadState } = await import("../../src/run/state.js");
      const state = createThreadState(instance.world, { callId: "call_deadline", tool: instance.world.catalog.get("run_code") }, null);
      const results = [];
      for (const source of [SYNCHRONOUS["pure loop"], defeat]) {
        const t0 = performance.now();
        const out = await state.runCode(source, { sandbox: "quickjs", timeoutMs: 500 }).result;
        results.push({ status: out.status, error: out.error, ms: performance.now() - t0 });
      }
      return results;
    });
    for (const [i, out] of outs.entries()) {
      lines.push(`sandbox: quickjs ${i === 0 ? "a yielding" : "a yield-defeating"} CPU-bound run with a 500 ms deadline ended ${out.status} after ${out.ms.toFixed(0)} ms`);
      expect(out.status).toBe("timeout");
      expect(out.ms).toBeLessThan(within(2000));
    }
  }, 120_000);
});

afterAll(() => {
  if (lines.length > 0) console.log(`\n${lines.join("\n")}`);
});
