/**
 * The QuickJS executor's WebAssembly heap: a memory with a fixed maximum, made here and handed to
 * the emscripten module (which would otherwise make its own with a 2 GiB maximum).
 *
 * QuickJS's own memory limit does not bound this heap: measured, a 24 MB limit refused one large
 * string but let arrays of numbers grow the heap to 2 GiB (likely because this build's allocator
 * reports no usable size, so QuickJS counts a few bytes per allocation), so the heap's maximum is
 * the bound that holds. It is one bound for every run in the instance: runs take turns (turns.ts).
 * At the maximum the emscripten allocator returns no memory (it never aborts for that), QuickJS
 * throws `out of memory`, and the run ends with `memory`; a heap that reached its maximum is
 * dropped with its engine after the run, since QuickJS can leak on that path.
 * @module
 */
import { QUICKJS_HEAP_BYTES } from "./limits.js";

/** Bytes of a WebAssembly memory page. */
const PAGE_BYTES = 64 * 1024;

/** The least memory the QuickJS module declares (16 MiB): its static data, stack and first heap. */
const INITIAL_PAGES = 256;

/** Heaps that refused to grow: something in them asked for more than the maximum. */
const full = new WeakSet<WebAssembly.Memory>();

/** Heaps being probed (`withoutFullMark`): a refusal there is the probe's answer, not a run's. */
const probing = new WeakSet<WebAssembly.Memory>();

/** Runs `fn` (an allocation that asks whether room is left) without marking `memory` full. */
export function withoutFullMark<T>(memory: WebAssembly.Memory, fn: () => T): T {
  probing.add(memory);
  try {
    return fn();
  } finally {
    probing.delete(memory);
  }
}

/**
 * What `npm run sandbox` reads: `peakBytes` is the most a QuickJS heap reached since
 * `resetPeak()`, measured at each growth (a heap never shrinks).
 */
export const quickJsHeap = {
  peakBytes: 0,
  /** The heap of the newest engine. */
  current: null as WebAssembly.Memory | null,
  /** Starts a measurement at the current heap's size (0 when `live` is false: no engine). */
  resetPeak(live = true): void {
    this.peakBytes = live && this.current ? this.current.buffer.byteLength : 0;
  },
  note(memory: WebAssembly.Memory): void {
    this.peakBytes = Math.max(this.peakBytes, memory.buffer.byteLength);
  },
};

/** A new heap of at most `maxBytes` (QUICKJS_HEAP_BYTES), its growth measured and its refusal kept. */
export function newHeap(maxBytes = QUICKJS_HEAP_BYTES): WebAssembly.Memory {
  const memory = new WebAssembly.Memory({ initial: INITIAL_PAGES, maximum: Math.max(INITIAL_PAGES, Math.floor(maxBytes / PAGE_BYTES)) });
  const grow = memory.grow.bind(memory);
  // emscripten grows the memory through this method and catches its RangeError at the maximum.
  memory.grow = (delta: number) => {
    try {
      return grow(delta);
    } catch (error) {
      if (!probing.has(memory)) full.add(memory);
      throw error;
    } finally {
      quickJsHeap.note(memory);
    }
  };
  quickJsHeap.current = memory;
  quickJsHeap.note(memory);
  return memory;
}

/** True once `memory` refused to grow: the heap is at its maximum. */
export function heapIsFull(memory: WebAssembly.Memory | undefined): boolean {
  return memory !== undefined && full.has(memory);
}
