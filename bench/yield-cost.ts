/**
 * The CPU cost of the QuickJS executor's yields (src/sandbox/yields.ts), run by
 * `node bench/yield-cost.mjs`: the same guest programs on the previous executor (the sync build
 * of QuickJS, code as written) and on the current one (the asyncify build, code instrumented,
 * ticking and yielding every slice), and on the asyncify build uninstrumented, to split the cost.
 * Prints process CPU time per program (median of runs) and the ratios; asserts nothing.
 */
import fs from "node:fs";
import asyncifyVariant from "@jitl/quickjs-wasmfile-release-asyncify";
import syncVariant from "@jitl/quickjs-wasmfile-release-sync";
import { type QuickJSContext, type QuickJSHandle, newQuickJSAsyncWASMModuleFromVariant, newQuickJSWASMModuleFromVariant, newVariant } from "quickjs-emscripten-core";
import { newHeap } from "../src/sandbox/heap.js";
import { instrument } from "../src/sandbox/instrument.js";
import { EngineYields, enter, executePendingJobsAsync, newAsyncRuntime, newTick } from "../src/sandbox/yields.js";

const PROGRAMS: Record<string, string> = {
  "loop-heavy (3e6 iterations of arithmetic)": "export default () => { let x = 0; for (let i = 0; i < 3e6; i++) x = (x * 31 + i) % 1000003; return x; }",
  "call-heavy (fib(25), 243k calls)": "const fib = (n) => (n < 2 ? n : fib(n - 1) + fib(n - 2)); export default () => fib(25)",
  "mixed (sort with a comparator, string building)": "export default () => { const a = []; for (let i = 0; i < 60000; i++) a.push((i * 7919) % 10007); a.sort((p, q) => p - q); let s = ''; for (const v of a) s += v.toString(36); return s.length; }",
};
const RUNS = 7;

// Node's WebAssembly (the project's types are the Workers', where a module comes compiled).
const compile = (WebAssembly as unknown as { compile(bytes: Uint8Array): Promise<WebAssembly.Module> }).compile;
const wasm = (name: string) => compile(fs.readFileSync(`node_modules/@jitl/quickjs-wasmfile-release-${name}/dist/emscripten-module.wasm`));
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const RUN = "(async (ns) => String((await ns).default()))";

const syncQjs = await newQuickJSWASMModuleFromVariant(newVariant(syncVariant, { wasmModule: await wasm("sync"), wasmMemory: newHeap() }));
const asyncHeap = newHeap();
const asyncQjs = await newQuickJSAsyncWASMModuleFromVariant(newVariant(asyncifyVariant, { wasmModule: await wasm("asyncify"), wasmMemory: asyncHeap }));
const yields = new EngineYields(asyncQjs, asyncHeap);

/** The string a settled promise holds, or "failed". */
function settled(ctx: QuickJSContext, promise: QuickJSHandle): string {
  const state = ctx.getPromiseState(promise);
  if (state.type !== "fulfilled") {
    if (state.type === "rejected") state.error.dispose();
    return "failed";
  }
  const text = ctx.getString(state.value);
  state.value.dispose();
  return text;
}

/** Previous executor: sync build, code as written. */
function runSync(source: string): string {
  const rt = syncQjs.newRuntime();
  const ctx = rt.newContext();
  const ns = ctx.evalCode(source, "main.js", { type: "module" }).unwrap();
  const fn = ctx.evalCode(RUN).unwrap();
  const p = ctx.callFunction(fn, ctx.undefined, ns).unwrap();
  rt.executePendingJobs().unwrap();
  const out = settled(ctx, p);
  for (const h of [ns, fn, p]) h.dispose();
  ctx.dispose();
  rt.dispose();
  return out;
}

/** Current executor: asyncify build, instrumented code, ticks and yields (`instrumented` false: neither). */
async function runAsync(source: string, instrumented: boolean): Promise<string> {
  const session = { closed: false, ended: new Promise(() => {}) } as never;
  const rt = newAsyncRuntime(asyncQjs);
  yields.setStack(rt);
  const ctx = rt.newContext();
  const tick = newTick(ctx, session, yields);
  ctx.setProp(ctx.global, "__weftTick", tick);
  tick.dispose();
  const ns = (await enter(yields, session, () => ctx.evalCodeAsync(instrumented ? instrument(source) : source, "main.js", { type: "module" }))).unwrap();
  const fn = ctx.evalCode(RUN).unwrap();
  const p = ctx.callFunction(fn, ctx.undefined, ns).unwrap();
  const error = await enter(yields, session, () => executePendingJobsAsync(rt, yields, asyncHeap));
  const out = error ? "failed" : settled(ctx, p);
  for (const h of [ns, fn, p, ...(error ? [error] : [])]) h.dispose();
  ctx.dispose();
  rt.dispose();
  return out;
}

console.log(`yield cost: CPU ms per run, median of ${RUNS} (Node ${process.version}); ratios against the previous executor`);
for (const [name, source] of Object.entries(PROGRAMS)) {
  const times: Record<string, number[]> = { old: [], asyncify: [], yielding: [] };
  let yieldsPerRun = 0;
  const expected = runSync(source);
  for (let r = 0; r < RUNS; r++) {
    let t = cpuMs();
    if (runSync(source) !== expected) throw new Error(`${name}: the sync build gave another answer`);
    times.old!.push(cpuMs() - t);
    t = cpuMs();
    if ((await runAsync(source, false)) !== expected) throw new Error(`${name}: the asyncify build gave another answer`);
    times.asyncify!.push(cpuMs() - t);
    const before = yields.taken.count;
    t = cpuMs();
    if ((await runAsync(source, true)) !== expected) throw new Error(`${name}: the instrumented run gave another answer`);
    times.yielding!.push(cpuMs() - t);
    yieldsPerRun = yields.taken.count - before;
  }
  const [old, asy, yld] = [median(times.old!), median(times.asyncify!), median(times.yielding!)];
  console.log(
    `yield cost: ${name}: previous ${old.toFixed(1)} ms; asyncify build alone ${asy.toFixed(1)} ms (${(asy / old).toFixed(2)}x); instrumented and yielding ${yld.toFixed(1)} ms (${(yld / old).toFixed(2)}x, ${yieldsPerRun} yields a run)`,
  );
}
