/**
 * Runs the sandbox conformance and hostile suites against each executor, inside a thread's Durable
 * Object with `state` bound to the `run_code` fixture tool, and checks after every case that the
 * thread still answers a normal request. `npm run sandbox` prints the summary lines.
 */
import { afterAll, describe, expect, it } from "vitest";
import type { ExecutorName } from "../../src/sandbox/executor.js";
import { QUICKJS_HEAP_BYTES } from "../../src/sandbox/limits.js";
import { quickJsHeap } from "../../src/sandbox/heap.js";
import { resetQuickJsHeapPeak } from "../../src/sandbox/quickjs.js";
import type { CodeExecutionOptions } from "../../src/tools/thread-state.js";
import { createThread, inThread, json } from "../helpers.js";
import { type SandboxCase, conformanceCases } from "./cases.js";
import { hostileCases } from "./hostile.js";

const EXECUTORS: ExecutorName[] = ["quickjs", "isolate"];

type Tally = { pass: number; total: number; contained: number; hostile: number; answered: number; productionOnly: string[] };
const tallies = new Map<ExecutorName, Tally>(EXECUTORS.map((e) => [e, { pass: 0, total: 0, contained: 0, hostile: 0, answered: 0, productionOnly: [] }]));

/** `sandbox: quickjs <case>: peak heap <n> MB`, one per QuickJS case, printed at the end. */
const heapLines: string[] = [];
const MB = 1024 * 1024;

let threadId: Promise<string> | null = null;
const thread = () => (threadId ??= createThread());

/** Runs one case in the thread, then asks the thread for its messages the normal way. */
async function runCase(sandbox: ExecutorName, c: SandboxCase): Promise<{ ok: boolean; error?: unknown; answered: boolean }> {
  const id = await thread();
  let ok = true;
  let error: unknown;
  try {
    await inThread(id, async (instance: any) => {
      const { createThreadState } = await import("../../src/run/state.js");
      const state = createThreadState(instance.world, { callId: "call_sandbox_case", tool: instance.world.catalog.get("run_code") }, null);
      const start = (source: string, options?: CodeExecutionOptions) => state.runCode(source, { sandbox, ...options });
      await c.run({ sandbox, state, instance, start, run: async (source, options) => start(source, options).result });
    });
  } catch (e) {
    ok = false;
    error = e;
  }
  const res = await json("GET", `/threads/${id}/messages?limit=1`);
  return { ok, error, answered: res.status === 200 && Array.isArray(res.body.messages) };
}

for (const sandbox of EXECUTORS) {
  describe(`sandbox ${sandbox}`, () => {
    const tally = tallies.get(sandbox)!;
    for (const [kind, cases] of [["conformance", conformanceCases], ["hostile", hostileCases]] as const) {
      for (const c of cases) {
        const reason = c.productionOnly?.[sandbox];
        if (reason) {
          tally.productionOnly.push(`${c.name} (${reason})`);
          it.skip(`${kind}: ${c.name} [production only: ${reason}]`, () => {});
          continue;
        }
        it(`${kind}: ${c.name}`, async () => {
          // The production memory figure: QuickJS's WebAssembly heap may never pass it.
          resetQuickJsHeapPeak();
          const result = await runCase(sandbox, c);
          const peak = quickJsHeap.peakBytes;
          if (sandbox === "quickjs") heapLines.push(`sandbox: quickjs ${c.name}: peak heap ${(peak / MB).toFixed(1)} MB`);
          expect(peak, "QuickJS's WebAssembly heap grew past its production figure").toBeLessThanOrEqual(QUICKJS_HEAP_BYTES);
          if (kind === "conformance") tally.total++;
          else tally.hostile++;
          if (result.ok && kind === "conformance") tally.pass++;
          if (result.ok && kind === "hostile") tally.contained++;
          if (result.answered) tally.answered++;
          if (!result.ok) throw result.error;
          expect(result.answered).toBe(true);
        }, 120_000);
      }
    }
  });
}

afterAll(() => {
  const lines: string[] = [...heapLines];
  for (const [sandbox, t] of tallies) {
    const ran = t.total + t.hostile;
    if (ran === 0) continue;
    const answered = t.answered === ran ? "thread answered after each" : `thread answered after ${t.answered} of ${ran}`;
    lines.push(`sandbox ${sandbox}: ${t.pass}/${t.total} conformance cases pass, ${t.contained}/${t.hostile} hostile cases contained, ${answered}`);
    for (const p of t.productionOnly) lines.push(`  production only, not counted: ${p}`);
  }
  // The leading newline keeps the reporter's prefix off the first line.
  if (lines.length > 0) console.log(`\n${lines.join("\n")}`);
});
