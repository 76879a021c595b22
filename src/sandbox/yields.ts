/**
 * Yields of the QuickJS executor: a synchronous CPU-bound run gives the Durable Object's thread
 * back every `SLICE_MS` or so, so a `GET` or `POST /threads/:id/stop` is answered during the run and
 * a stop ends it within 100 ms. QuickJS's interrupt handler cannot wait, so the guest code is
 * instrumented (instrument.ts) to call the host's tick, an asyncified function of the asyncify
 * build of QuickJS: when a slice is used up it awaits a macrotask, the WebAssembly stack unwound
 * meanwhile and rewound after.
 *
 * A slice is measured by the clock where it moves (local workerd, Node), and where it stands still
 * during synchronous work (Cloudflare) by a count of ticks, adapted after each yield to the time the
 * clock shows then: the deadline itself stays with the session and the interrupt clock (cpu-clock.ts).
 *
 * Rules that keep the shared instance sound: one stack suspended at a time (a nested run, or host
 * code entering QuickJS while a run is suspended, never suspends: its ticks return at once); a run
 * suspends only inside its own asynchronous entry (`enter`: never inside a synchronous call such as
 * reading a value, which could not wait); never when the heap could not hold the stack's copy.
 * @module
 */
import { type AsyncFunctionImplementation, Lifetime, type QuickJSAsyncContext, QuickJSAsyncRuntime, type QuickJSAsyncWASMModule, type QuickJSHandle } from "quickjs-emscripten-core";
import { withoutFullMark } from "./heap.js";
import { YIELD_EVERY_TICKS } from "./instrument.js";
import { QUICKJS_HEAP_BYTES, QUICKJS_STACK_BYTES } from "./limits.js";
import type { RunSession } from "./session.js";

/** Target CPU time of one slice between yields, in milliseconds. */
export const SLICE_MS = 10;

/**
 * Bytes the asyncify build copies a suspended stack into (allocated in the heap at each yield).
 * Measured: a suspension at the deepest recursion the QuickJS stack allows needed under twice its
 * size (plain, `map` callback and getter recursion); past this buffer the instance aborts.
 */
export const ASYNCIFY_STACK_BYTES = 4 * QUICKJS_STACK_BYTES;

/** Host ticks per slice before the first measurement (a tick is `YIELD_EVERY_TICKS` guest ticks). */
const FIRST_TICKS_PER_SLICE = 20;
const MAX_TICKS_PER_SLICE = 100_000;

/** The yield state of one QuickJS instance. */
export class EngineYields {
  /** True while a run's stack is suspended in a yield. */
  suspended = false;
  /** The run whose asynchronous entry into QuickJS is open (the only one that may suspend). */
  entry: RunSession | null = null;
  /**
   * Host functions running now. One reads its arguments with QuickJS (`getString`), which can run
   * the guest's `toString` inside that synchronous call: a tick there must not suspend.
   */
  inHost = 0;
  private readonly spare: QuickJSAsyncRuntime;
  private readonly module: EmscriptenModule;
  /**
   * `QTS_ExecutePendingJob` as a call that may suspend: the library wraps it as a plain export
   * (its arguments are numbers), which returns at the first suspension with nothing.
   */
  readonly executePendingJob: (rt: number, max: number, ctxOut: number) => Promise<number>;

  constructor(
    qjs: QuickJSAsyncWASMModule,
    private readonly heap: WebAssembly.Memory,
    /** Counts the yields taken (shared by the engines of an isolate, for tests). */
    readonly taken: { count: number } = { count: 0 },
  ) {
    this.spare = newAsyncRuntime(qjs);
    this.module = (qjs as unknown as { module: EmscriptenModule }).module;
    this.executePendingJob = this.module.cwrap("QTS_ExecutePendingJob", "number", ["number", "number", "number"], { async: true }) as never;
  }

  /** Sets a run's stack size; the asyncify buffer, which every stack-size call resets, after it. */
  setStack(runtime: QuickJSAsyncRuntime): void {
    runtime.setMaxStackSize(QUICKJS_STACK_BYTES);
    this.spare.setMaxStackSize(ASYNCIFY_STACK_BYTES);
  }

  /** True when the heap can hold a suspended stack's copy now (probed without marking it full). */
  canHoldStack(): boolean {
    const bytes = ASYNCIFY_STACK_BYTES + 64;
    // Room to grow into: the allocation cannot fail.
    if (this.heap.buffer.byteLength + 2 * bytes <= QUICKJS_HEAP_BYTES) return true;
    const at = withoutFullMark(this.heap, () => this.module._malloc(bytes));
    if (at === 0) return false;
    this.module._free(at);
    return true;
  }
}

/**
 * `qjs.newRuntime()` with its disposal in the right order: the library's asyncify module drops the
 * runtime's callbacks before freeing it (0.32.0), and the free then throws inside the instance for
 * each host function ("QuickJSRuntime not found when trying to free HostRef"). The sync module
 * frees first, as here.
 */
export function newAsyncRuntime(qjs: QuickJSAsyncWASMModule): QuickJSAsyncRuntime {
  type Internals = { module: never; ffi: { QTS_NewRuntime(): number; QTS_FreeRuntime(rt: number): void }; callbacks: { deleteRuntime(rt: number): void } };
  const { module, ffi, callbacks } = qjs as unknown as Internals;
  const rt = new Lifetime(ffi.QTS_NewRuntime(), undefined, (pointer: number) => {
    ffi.QTS_FreeRuntime(pointer);
    callbacks.deleteRuntime(pointer);
  });
  return new QuickJSAsyncRuntime({ module, ffi, rt, callbacks } as never);
}

/** What the yields use of the emscripten module (not in the library's types). */
interface EmscriptenModule {
  _malloc(bytes: number): number;
  _free(at: number): void;
  cwrap(name: string, returns: string, args: string[], options: { async: true }): unknown;
}

/** One run's slices. */
class Slices {
  startedAt = Date.now();
  ticks = 0;
  perSlice = FIRST_TICKS_PER_SLICE;
}

const slicesOf = new WeakMap<RunSession, Slices>();

/**
 * Runs `call`, an asynchronous entry of `session` into QuickJS (evaluation, pending jobs): its
 * ticks may suspend it. The entry before it is restored when it settles.
 */
export async function enter<T>(yields: EngineYields, session: RunSession, call: () => Promise<T> | T): Promise<T> {
  const previous = yields.entry;
  yields.entry = session;
  const slices = slicesOf.get(session);
  if (slices) {
    slices.startedAt = Date.now();
    slices.ticks = 0;
  }
  try {
    return await call();
  } finally {
    yields.entry = previous;
  }
}

/** `__weftHost.tick` for `session`: returns the guest's next count, after a yield when one is due. */
export function newTick(context: QuickJSAsyncContext, session: RunSession, yields: EngineYields): QuickJSHandle {
  const slices = new Slices();
  slicesOf.set(session, slices);
  const next = () => context.newNumber(YIELD_EVERY_TICKS);
  // A handle returned at once does not suspend; a promise does (the library allows both).
  const tick = () => {
    slices.ticks++;
    if (session.closed || yields.suspended || yields.inHost > 0 || yields.entry !== session) return next();
    if (Date.now() - slices.startedAt < SLICE_MS && slices.ticks < slices.perSlice) return next();
    if (!yields.canHoldStack()) return next();
    const byCount = slices.ticks >= slices.perSlice;
    const began = slices.startedAt;
    yields.suspended = true;
    yields.taken.count++;
    return new Promise<QuickJSHandle>((resolve) => {
      let resumed = false;
      const resume = () => {
        if (resumed) return;
        resumed = true;
        clearTimeout(timer);
        yields.suspended = false;
        const now = Date.now();
        // Where the clock stood still the slice ended by count: fit the count to the time it took.
        if (byCount) slices.perSlice = Math.min(MAX_TICKS_PER_SLICE, Math.max(1, Math.round((slices.perSlice * SLICE_MS) / Math.max(1, now - began))));
        slices.startedAt = now;
        slices.ticks = 0;
        resolve(next());
      };
      // A macrotask lets the thread's waiting requests in; a run that ends meanwhile (a stop, its
      // deadline) resumes at once, in the context that ended it, and the interrupt handler ends it.
      const timer = setTimeout(resume, 0);
      void session.ended.then(resume);
    });
  };
  return context.newAsyncifiedFunction("tick", tick as unknown as AsyncFunctionImplementation);
}

/**
 * `runtime.executePendingJobs()` through the asynchronous entry point of the asyncify build, so
 * jobs may suspend: the library offers it only for evaluation. Returns the error handle of a job
 * that threw, or null.
 */
export async function executePendingJobsAsync(runtime: QuickJSAsyncRuntime, yields: EngineYields, heap: WebAssembly.Memory): Promise<QuickJSHandle | null> {
  type Internals = {
    rt: { value: number };
    ffi: { QTS_FreeValuePointerRuntime(rt: number, v: number): void };
    memory: { newMutablePointerArray(n: number): { value: { ptr: number }; dispose(): void } };
    contextMap: Map<number, QuickJSAsyncContext>;
  };
  const r = runtime as unknown as Internals;
  const out = r.memory.newMutablePointerArray(1);
  let valuePtr: number;
  let ctxPtr: number;
  try {
    valuePtr = await yields.executePendingJob(r.rt.value, -1, out.value.ptr);
    // The heap may have grown while suspended: read through a fresh view.
    ctxPtr = new Int32Array(heap.buffer)[out.value.ptr >> 2]!;
  } finally {
    out.dispose();
  }
  if (ctxPtr === 0) {
    r.ffi.QTS_FreeValuePointerRuntime(r.rt.value, valuePtr);
    return null;
  }
  const context = r.contextMap.get(ctxPtr);
  if (!context) throw new Error("a QuickJS job ran in an unknown context");
  const handle = (context as unknown as { getMemory(rt: number): { heapValueHandle(p: number): QuickJSHandle } }).getMemory(r.rt.value).heapValueHandle(valuePtr);
  if (context.typeof(handle) === "number") {
    handle.dispose();
    return null;
  }
  return handle;
}
