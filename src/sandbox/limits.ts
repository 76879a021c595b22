/**
 * The sandbox's limits, one table for both executors.
 * @module
 */

/** Memory ceiling of a sandbox: 128 MB, the memory of one Cloudflare Workers isolate. */
export const MEMORY_CEILING_BYTES = 128 * 1024 * 1024;

/**
 * The most the QuickJS executor's WebAssembly heap may reach, in bytes: 64 MiB. WebAssembly memory
 * counts against the isolate's 128 MB with the Worker's own JavaScript heap, and never shrinks, so
 * it needs a fixed maximum well below the ceiling; past it an allocation fails and the run ends
 * with `memory`.
 */
export const QUICKJS_HEAP_BYTES = 64 * 1024 * 1024;

/** Default wall-clock deadline of a run, in milliseconds. */
export const DEFAULT_TIMEOUT_MS = 5_000;

/** Longest deadline a caller may ask for, in milliseconds (a run holds its tool call open). */
export const MAX_TIMEOUT_MS = 60_000;

/**
 * The most CPU one synchronous stretch of a QuickJS run may count where the clock stands still, in
 * milliseconds: below the 30 s CPU limit of a Durable Object's request, whose thread runs it.
 */
export const QUICKJS_STRETCH_CPU_MS = 20_000;

/** CPU budget passed to the Workers runtime for an isolate run (enforced in production only). */
export const ISOLATE_CPU_MS = 5_000;

/**
 * Subrequests an isolate run may make (the runtime's limit, enforced in production only), and the
 * fetches any run may make through the host's gateway (session.ts, counted by weft everywhere).
 */
export const ISOLATE_SUBREQUESTS = 50;

/** Cap of a run's console output, in UTF-8 bytes; past it the run ends with `error`. */
export const MAX_LOG_BYTES = 256 * 1024;

/** Cap of a run's encoded result, and of its encoded arguments and globals, in UTF-8 bytes. */
export const MAX_VALUE_BYTES = 1024 * 1024;

/**
 * QuickJS stack size; deeper recursion ends with QuickJS's `InternalError: stack overflow`. 256 KiB:
 * at 512 KiB the engine's own native stack ran out first (measured on Node 22: V8's `RangeError`
 * out of the WebAssembly instance, which then had to be dropped).
 */
export const QUICKJS_STACK_BYTES = 256 * 1024;

/** Compatibility date of the isolates the Worker Loader starts. */
export const ISOLATE_COMPATIBILITY_DATE = "2026-11-02";

/**
 * Timers a QuickJS run may have pending at once (its `setTimeout`s are the host's timers). workerd
 * allows the thread's Durable Object 10,000 active timeouts in all; past this a run's `setTimeout`
 * throws, so no run can take the thread's own.
 */
export const MAX_RUN_TIMERS = 1_000;
