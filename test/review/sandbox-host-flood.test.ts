/**
 * Review (sandbox, isolate executor): code in a Worker Loader isolate reaches the host through RPC
 * calls on its session's stub, one per console line (with `report: true`), per `reportProgress`,
 * per import call. Code that fires thousands of them without waiting (well within the console cap)
 * kept the thread's Durable Object busy answering them long past the run's deadline: its timers,
 * the deadline's among them, did not fire meanwhile (measured locally: 20,000 lines of one
 * character held a 1 s run for 60 s, and the cost grows with the square of the calls in flight).
 * A run's deadline must hold however the code talks to the host.
 */
import { describe, expect, it } from "vitest";
import type { CodeExecutionOptions, CodeExecutionResult } from "../../src/tools/thread-state.js";
import { within } from "../sandbox/bounds.js";
import { createThread, inThread } from "../helpers.js";
import { codeState } from "../sandbox/code-state.js";

async function timed(source: string, options: CodeExecutionOptions): Promise<{ out: CodeExecutionResult; ticks: number }> {
  const id = await createThread();
  return inThread(id, async (instance: any) => {
    const state = await codeState(instance, "call_review_flood");
    // A timer of the thread's own: it should keep firing while the run goes on.
    let ticks = 0;
    const timer = setInterval(() => ticks++, 100);
    try {
      const out = await state.runCode(source, { sandbox: "isolate", ...options }).result;
      return { out, ticks };
    } finally {
      clearInterval(timer);
    }
  });
}

describe("sandbox isolate", () => {
  it("20,000 one-character console lines (under the console cap) end by the run's 1 s deadline, not a minute later", async () => {
    const { out } = await timed("export default () => { for (let i = 0; i < 20000; i++) console.log('x'); return 'done' }", { report: true, timeoutMs: 1000 });
    expect(["success", "timeout"]).toContain(out.status);
    expect(out.durationMs, `the run took ${Math.round(out.durationMs)} ms`).toBeLessThan(within(1000 + 1000));
  });

  it("20,000 import calls fired without waiting end by the run's 1 s deadline, and the thread's timers keep firing", async () => {
    const { out, ticks } = await timed(
      "import { take } from 'host';\nexport default async () => { const all = []; for (let i = 0; i < 20000; i++) all.push(take(i)); await Promise.all(all); return 'done' }",
      { imports: { host: { take: (i: unknown) => i } }, timeoutMs: 1000 },
    );
    expect(["success", "timeout"]).toContain(out.status);
    expect(out.durationMs, `the run took ${Math.round(out.durationMs)} ms`).toBeLessThan(within(1000 + 1000));
    // A run held seconds by its calls starved the thread's timers (no tick in 56 s). Within a second
    // or so a tick may be missed on a loaded machine: the isolate's other objects share its thread.
    if (out.durationMs > 3000) expect(ticks, "the thread's 100 ms timer never fired during the run").toBeGreaterThan(0);
  });
});
