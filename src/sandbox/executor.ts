/**
 * The sandbox contract: one interface that every executor implements (QuickJS-in-WASM and Worker
 * Loader isolates), checked by one conformance suite (test/sandbox/cases.ts).
 *
 * Contract: `run` never throws; every failure, including the executor's own, comes back in the
 * outcome with a status and a message.
 * @module
 */

import type { CodeExecutionResult } from "../tools/thread-state.js";
import type { Cancellation } from "./cancel.js";

/** How a sandboxed run ended. */
export type CodeStatus = CodeExecutionResult["status"];

/** The executors weft ships: `quickjs` (QuickJS compiled to WASM) and `isolate` (Worker Loader). */
export type ExecutorName = CodeExecutionResult["executor"];

/** What a run produced: the `runCode` result. */
export type CodeOutcome = CodeExecutionResult;

/** A host function the sandbox may import; arguments and result are structured-clone values. */
export type HostFunction = (...args: unknown[]) => unknown;

/** A module the sandbox may import by specifier: its named exports are host functions. */
export type HostModule = Readonly<Record<string, HostFunction>>;

/** Everything an executor needs for one run; built and checked by `runCode` (run-code.ts). */
export interface SandboxRequest {
  /** File name of the entry module, used in stack traces. */
  filename: string;
  /** JavaScript of the entry module (TypeScript already stripped). */
  source: string;
  /** Other modules by normalized path (no leading `./`), JavaScript. */
  modules: Readonly<Record<string, string>>;
  /** The export to call and its arguments. */
  execute: { fn: string; args: unknown[] };
  /** Values set on the sandbox's `globalThis` before the entry module runs. */
  globals: Readonly<Record<string, unknown>>;
  /** Host modules by import specifier. */
  imports: Readonly<Record<string, HostModule>>;
  /** Wall-clock deadline of the run, in milliseconds. */
  timeoutMs: number;
  /** Memory limit in bytes (already clamped to the ceiling). */
  memoryLimitBytes: number;
  /** Cap of all console output together, in UTF-8 bytes; past it the run ends with `error`. */
  maxLogBytes: number;
  /** Cap of the encoded result, in UTF-8 bytes. */
  maxResultBytes: number;
  /** URL origins `fetch` may reach; empty: no network at all. */
  fetchAllow: readonly string[];
  /** Scope of reuse: warm state is never shared across scopes (weft passes the thread id). */
  scope: string;
  /**
   * Whose run it is: the thread's owner (its `userId`). QuickJS hands its one engine round robin
   * over owners (turns.ts); absent, the run's scope is an owner of its own.
   */
  owner?: string;
  /** Cancelling ends the run with `cancelled`. */
  cancellation: Cancellation;
  /** Each console call, as it happens. */
  onLog?(level: string, text: string): void;
  /** Each `reportProgress(data)` call of the code. */
  onProgress?(data: unknown): void;
}

/** A place code runs. Implementations: `QuickJsExecutor` (quickjs.ts), `IsolateExecutor` (isolate.ts). */
export interface SandboxExecutor {
  readonly name: ExecutorName;
  /**
   * Whether a limit below the ceiling is enforced. A Workers isolate always gets 128 MB, so
   * `isolate` reports the ceiling whatever is asked; QuickJS enforces any lower value.
   */
  readonly enforcesLowerMemoryLimit: boolean;
  /** Runs one request. Never throws: every failure is an outcome. */
  run(request: SandboxRequest): Promise<CodeOutcome>;
}
