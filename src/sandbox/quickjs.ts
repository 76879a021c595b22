/**
 * The QuickJS executor: each run gets a fresh QuickJS runtime and context inside one WebAssembly
 * instance of QuickJS, shared by the isolate's runs, which take turns on it (turns.ts: one run at a
 * time, so one run's memory never fails another's, and a run's runtime is freed or its engine
 * dropped before the next starts). The interrupt handler enforces the deadline, the runtime the
 * stack size and the instance's heap (heap.ts) a fixed maximum of memory, so limits hold in every
 * runtime, local workerd included.
 * @module
 */
// By file path: wrangler's bundler loads an import ending in `.wasm` as a compiled module (its
// CompiledWasm rule); the package's `./wasm` export name does not end in `.wasm`.
// The asyncify build: a host function may wait, which the yields of CPU-bound code need (yields.ts).
import wasmModule from "../../node_modules/@jitl/quickjs-wasmfile-release-asyncify/dist/emscripten-module.wasm";
import variant from "@jitl/quickjs-wasmfile-release-asyncify";
import {
  type DisposableResult,
  type QuickJSAsyncContext as QuickJSContext,
  type QuickJSAsyncRuntime as QuickJSRuntime,
  type QuickJSAsyncWASMModule,
  type QuickJSDeferredPromise,
  type QuickJSHandle,
  newQuickJSAsyncWASMModuleFromVariant,
  newVariant,
} from "quickjs-emscripten-core";
import { encodeValue } from "./codec.js";
import { InterruptClock } from "./cpu-clock.js";
import type { CodeOutcome, SandboxExecutor, SandboxRequest } from "./executor.js";
import { heapIsFull, newHeap, quickJsHeap } from "./heap.js";
import { instrument } from "./instrument.js";
import { MAX_TIMEOUT_MS, QUICKJS_HEAP_BYTES } from "./limits.js";
import { QUICKJS_PRELUDE, importModuleSource } from "./prelude.js";
import { RunSession, describeError } from "./session.js";
import { type EngineTurn, EngineTurns } from "./turns.js";
import { hostTick, installHost } from "./quickjs-host.js";
import { EngineYields, enter, executePendingJobsAsync, newAsyncRuntime } from "./yields.js";

/** The shared QuickJS instance, its heap and its yields. */
interface Engine {
  readonly module: Promise<{ qjs: QuickJSAsyncWASMModule; yields: EngineYields }>;
  readonly heap: WebAssembly.Memory;
}

let engine: Engine | null = null;

/** Yields of every engine so far. */
const yieldsTaken = { count: 0 };

/** The shared QuickJS instance, compiled from the bundled `.wasm` on first use, on a bounded heap. */
function loadEngine(): Engine {
  if (engine) return engine;
  const heap = newHeap();
  const module = newQuickJSAsyncWASMModuleFromVariant(newVariant(variant, { wasmModule, wasmMemory: heap })).then((qjs) => ({ qjs, yields: new EngineYields(qjs, heap, yieldsTaken) }));
  engine = { heap, module };
  return engine;
}

/** Yields taken by every QuickJS engine of this isolate so far (yields.ts): tests read it. */
export function yieldCount(): number {
  return yieldsTaken.count;
}

/** `quickJsHeap.resetPeak` for the engine in use (none after a discard). */
export function resetQuickJsHeapPeak(): void {
  quickJsHeap.resetPeak(engine !== null);
}

/**
 * Drops the shared QuickJS instance so the next run compiles a fresh one: what a cold start costs
 * (`npm run bench` measures it).
 */
export function discardQuickJsEngine(): void {
  engine = null;
}

/** Resolves a module specifier against the importing module's path; host imports stay as named. */
export function resolveModule(base: string, specifier: string, hostModules: ReadonlySet<string>): string {
  if (hostModules.has(specifier) || !specifier.startsWith(".")) return specifier;
  const parts = base.split("/").slice(0, -1);
  for (const part of specifier.split("/")) {
    if (part === "..") parts.pop();
    else if (part !== ".") parts.push(part);
  }
  return parts.join("/");
}

/** Runs code in QuickJS compiled to WebAssembly; limits hold everywhere. */
export class QuickJsExecutor implements SandboxExecutor {
  readonly name = "quickjs";
  readonly enforcesLowerMemoryLimit = true;

  async run(request: SandboxRequest): Promise<CodeOutcome> {
    const session = new RunSession(request, this.name, Math.min(request.memoryLimitBytes, QUICKJS_HEAP_BYTES), MAX_TIMEOUT_MS);
    // One run at a time on the engine (turns.ts): another run's memory never fails this one.
    const turn = await turns.take(session);
    if (!turn) return session.ended;
    try {
      if (session.closed) return session.ended;
      session.begin(turn.until);
      const current = engineOf(turn);
      try {
        await turns.within(turn, async () => {
          const { qjs, yields } = await current.module;
          await execute(session, qjs, yields, current.heap);
        });
      } catch (error) {
        // A failure inside the WebAssembly instance may leave it inconsistent: start a new one.
        if (engine === current) discardQuickJsEngine();
        if (heapIsFull(current.heap)) outOfMemory(session);
        else session.end("error", `InternalError: the QuickJS engine failed (${describeError(error)}); the next run starts a fresh one`);
      }
      return session.ended;
    } finally {
      // After `execute`: the run's runtime is freed, or its engine dropped, before the next starts.
      turn.release();
    }
  }
}

/** The turns of this isolate's runs on the engine; a turn taken as lost leaves its engine to it. */
const turns = new EngineTurns(discardQuickJsEngine);

/**
 * The engine of the newest turn (one turn holds the engine at a time), kept until the next turn
 * begins: not by the turn object, which async work its code started may keep alive for long.
 */
let pinned: { turn: EngineTurn; engine: Engine } | null = null;

/**
 * The engine of `turn`: a nested run's is its holder's, even once a run of the turn dropped it
 * (the next turn's starts fresh), since a second heap beside the holder's, still in use, would pass
 * the isolate's 128 MB.
 */
function engineOf(turn: EngineTurn): Engine {
  const root = turns.rootOf(turn);
  if (pinned?.turn === root) return pinned.engine;
  // Let go of the last turn's engine first: a dropped one is garbage once its runs are gone.
  pinned = null;
  pinned = { turn: root, engine: loadEngine() };
  return pinned.engine;
}

async function execute(session: RunSession, qjs: QuickJSAsyncWASMModule, yields: EngineYields, heap: WebAssembly.Memory): Promise<void> {
  if (session.closed) return;
  const request = session.request;
  const runtime = newAsyncRuntime(qjs);
  heapOf.set(runtime, heap);
  runtime.setMemoryLimit(session.memoryLimitBytes);
  yields.setStack(runtime);
  const clock = new InterruptClock(session.deadline);
  clocks.set(session, clock);
  const stop = () => {
    // Stopped midway, the runtime may hold what nothing can free (see `unfreeable`).
    unfreeable.add(runtime);
    return true;
  };
  runtime.setInterruptHandler(() => {
    if (session.closed || clock.expired()) return stop();
    return false;
  });
  const hostModules = new Set(Object.keys(request.imports));
  // The caller's modules tick at loop heads and function entries (instrument.ts); host imports need not.
  const sources: Record<string, string> = Object.fromEntries(Object.entries(request.modules).map(([name, text]) => [name, instrument(text)]));
  sources[request.filename] = instrument(request.source);
  for (const [specifier, table] of Object.entries(request.imports)) sources[specifier] = importModuleSource(specifier, Object.keys(table));
  runtime.setModuleLoader(
    (name) => (Object.hasOwn(sources, name) ? sources[name]! : { error: new Error(`Cannot find module ${JSON.stringify(name)}`) }),
    (base, specifier) => resolveModule(base, specifier, hostModules),
  );
  const context = runtime.newContext();
  const deferreds = new Set<QuickJSDeferredPromise>();
  let poisoned = false;
  try {
    installHost(context, session, deferreds, yields);
    // The context's first interrupt check comes in the prelude: a run whose deadline passed while it
    // started (a loaded isolate, a fresh engine's load) is interrupted there, and ends `timeout`.
    if (!ranSetup(session, runtime, context, context.evalCode(QUICKJS_PRELUDE, "weft:prelude", { type: "global" }))) return;
    const globalsText = encodeValue(request.globals, "globals");
    const argsText = encodeValue(request.execute.args, "args");
    const weft = context.getProp(context.global, "__weft");
    try {
      const globals = context.newString(globalsText);
      const set = context.callMethod(weft, "setGlobals", [globals]);
      globals.dispose();
      if (!ranSetup(session, runtime, context, set)) return;
      const namespace = await enter(yields, session, () => context.evalCodeAsync(sources[request.filename]!, request.filename, { type: "module" }));
      if (namespace.error) {
        finishWithError(session, runtime, context, namespace.error);
        return;
      }
      const fn = context.newString(request.execute.fn);
      const args = context.newString(argsText);
      const call = context.callMethod(weft, "start", [namespace.value, fn, args]);
      for (const h of [namespace.value, fn, args]) h.dispose();
      if (call.error) {
        finishWithError(session, runtime, context, call.error);
        return;
      }
      try {
        await settle(session, runtime, context, call.value, () => deferreds.size, yields, heap);
      } finally {
        call.value.dispose();
      }
    } finally {
      weft.dispose();
    }
  } catch (error) {
    if (error instanceof RangeError || error instanceof WebAssembly.RuntimeError) poisoned = true;
    if (!poisoned) session.end("error", describeError(error));
    else throw error;
  } finally {
    // A heap at its maximum held an allocation QuickJS may have half made: nothing is freed piecemeal.
    if (heapIsFull(heap)) unfreeable.add(runtime);
    if (unfreeable.has(runtime)) discardQuickJsEngine();
    else if (!poisoned) {
      for (const d of deferreds) d.dispose();
      context.dispose();
      runtime.dispose();
    }
  }
}

/** Waits for the promise of `start`, running QuickJS jobs each time a host operation settles. */
async function settle(session: RunSession, runtime: QuickJSRuntime, context: QuickJSContext, promise: QuickJSHandle, pendingHostOps: () => number, yields: EngineYields, heap: WebAssembly.Memory): Promise<void> {
  for (;;) {
    // Asynchronous: the jobs (the caller's code) may yield the thread midway (yields.ts).
    const jobError = await enter(yields, session, () => executePendingJobsAsync(runtime, yields, heap));
    if (jobError) {
      finishWithError(session, runtime, context, jobError);
      return;
    }
    if (session.closed) return;
    const state = context.getPromiseState(promise);
    if (state.type === "fulfilled") {
      let text: string;
      try {
        text = context.getString(state.value);
      } finally {
        state.value.dispose();
      }
      session.succeed(text);
      return;
    }
    if (state.type === "rejected") {
      finishWithError(session, runtime, context, state.error);
      return;
    }
    // A host operation that settled while the jobs ran queued its job: run it before sleeping.
    if (runtime.hasPendingJob()) continue;
    if (pendingHostOps() === 0) {
      // An interrupt inside a callback rejects only that callback's promise, not the run's.
      if (unfreeable.has(runtime)) return void expire(session);
      session.end("timeout", `the promise of ${session.request.execute.fn}() never settles: nothing is left that could settle it`);
      return;
    }
    await Promise.race([session.ended, hostTick.next(session)]);
    if (session.closed) return;
  }
}

/**
 * Takes the result of weft's own code in the VM (the prelude, `setGlobals`): true when it ran;
 * false when it threw, and the run then ended as `finishWithError` maps the exception (an interrupt
 * there is the run's deadline, not an error of weft's code).
 */
function ranSetup(session: RunSession, runtime: QuickJSRuntime, context: QuickJSContext, result: DisposableResult<QuickJSHandle, QuickJSHandle>): boolean {
  if (result.error) {
    finishWithError(session, runtime, context, result.error);
    return false;
  }
  result.value.dispose();
  return true;
}

/**
 * Runtimes that must not be freed piecemeal. QuickJS can leak on the paths that stop a run midway:
 * an allocation past the memory limit, or an interrupt that lands inside an allocation, can leave
 * a half-built object nothing refers to, and freeing that runtime then aborts the whole engine on
 * its leak check (`list_empty(&rt->gc_obj_list)`), even with every handle of ours disposed. Such a
 * run drops the engine instead, its memory with it; the next run starts a fresh one.
 */
const unfreeable = new WeakSet<QuickJSRuntime>();

/** The deadline clock of each run. */
const clocks = new WeakMap<RunSession, InterruptClock>();

/** The heap each runtime lives in. */
const heapOf = new WeakMap<QuickJSRuntime, WebAssembly.Memory>();

/**
 * Ends an interrupted run with `timeout`. A run interrupted while the clock still reads before its
 * deadline was ended by the interrupt count, and the message says so.
 */
function expire(session: RunSession): void {
  const clock = clocks.get(session);
  if (clock?.counted) session.expire(clock.describe());
  else session.expire();
}

/** Ends a run that asked for more memory than its limit, or than the heap's maximum. */
function outOfMemory(session: RunSession): void {
  session.end("memory", `RangeError: the run needed more than its ${session.memoryLimitBytes}-byte memory limit`);
}

/** Maps an exception from the VM to a status: interrupted, out of memory, or an error. */
function finishWithError(session: RunSession, runtime: QuickJSRuntime, context: QuickJSContext, errorHandle: QuickJSHandle): void {
  let dumped: unknown;
  try {
    dumped = context.dump(errorHandle);
  } catch {
    dumped = { name: "InternalError", message: "out of memory" };
  } finally {
    errorHandle.dispose();
  }
  const err = (dumped && typeof dumped === "object" ? dumped : { name: "Error", message: String(dumped) }) as { name?: string; message?: string; stack?: string };
  const line = `${err.name ?? "Error"}: ${err.message ?? ""}`;
  if (err.name === "InternalError" && err.message === "interrupted") {
    if (session.closed) return;
    expire(session);
  } else if ((err.name === "InternalError" && err.message === "out of memory") || heapIsFull(heapOf.get(runtime))) {
    // At the heap's maximum QuickJS may have no memory left to build its error: it throws null.
    unfreeable.add(runtime);
    outOfMemory(session);
  } else {
    session.end("error", err.stack ? `${line}\n${err.stack.trimEnd()}` : line);
  }
}
