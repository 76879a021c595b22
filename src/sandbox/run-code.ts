/**
 * `state.runCode(source, options)`: checks the options, strips TypeScript, turns granted tools into
 * importable async functions, picks the executor and returns the `CodeExecution` handle. Never
 * throws: a bad option is an `error` outcome naming the option.
 * @module
 */
import { byteLength } from "../bytes.js";
import { settingOf } from "../config.js";
import { WeftError } from "../errors.js";
import type { EventPayloads, ToolResult } from "../protocol.js";
import type { CodeExecution, CodeExecutionOptions, CodeExecutionResult } from "../tools/thread-state.js";
import { Cancellation } from "./cancel.js";
import type { ExecutorName, HostModule, SandboxExecutor, SandboxRequest } from "./executor.js";
import { loaderEnforcesLimits } from "./auto.js";
import { IsolateExecutor } from "./isolate.js";
import { DEFAULT_TIMEOUT_MS, MAX_LOG_BYTES, MAX_TIMEOUT_MS, MAX_VALUE_BYTES, MEMORY_CEILING_BYTES } from "./limits.js";
import { QuickJsExecutor } from "./quickjs.js";
import { describeError } from "./session.js";
import { stripTypes } from "./typescript.js";

/** What `runCode` needs from the thread; `ThreadState` supplies it for the call it is bound to. */
export interface CodeHost {
  /** Scope of warm isolate reuse: the thread id. */
  readonly scope: string;
  /** The thread's owner, when it has one: QuickJS turns are fair between owners (turns.ts). */
  readonly owner?: string;
  /** The calling tool's call id, when there is one (it appears in `code_*` events). */
  readonly callId?: string;
  /** The Worker's bindings and vars: `LOADER` (Worker Loader) and `WEFT_SANDBOX` are read. */
  readonly workerEnv: Readonly<Record<string, unknown>>;
  /** Aborts with the execution the call belongs to (a stopped turn cancels its code). */
  readonly signal?: AbortSignal;
  /** Checks that the calling tool may invoke `toolName` (its `uses`); throws a `WeftError`. */
  checkTool(toolName: string): void;
  /** Runs a tool call through the dispatch pipeline, as `state.invokeTool` does. */
  invokeTool(toolName: string, args: Record<string, unknown>): Promise<ToolResult>;
  /** Emits a thread event (`code_log`, `code_progress`, `code_finished`). */
  emit<K extends "code_log" | "code_progress" | "code_finished">(type: K, data: EventPayloads[K]): void;
  /** Told of every run's end, reported or not (the thread's `run_code` span); times are epoch ms. */
  finished?(run: CodeRunEnd): void;
}

/** A run's end as {@link CodeHost.finished} is told of it. Times are epoch milliseconds. */
export interface CodeRunEnd {
  executionId: string;
  callId?: string;
  executor: CodeExecutionResult["executor"];
  status: CodeExecutionResult["status"];
  startMs: number;
  endMs: number;
}

const OPTION_NAMES = new Set(["execute", "imports", "globals", "modules", "language", "memoryLimitBytes", "filename", "report", "timeoutMs", "sandbox", "fetch"]);
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const PATH = /^[\w-]+(\.[\w-]+)*(\/[\w-]+(\.[\w-]+)*)*$/;

const quickjs = new QuickJsExecutor();
const isolates = new WeakMap<WorkerLoader, IsolateExecutor>();

/**
 * The executor a run uses: the option, else the Worker var `WEFT_SANDBOX`, else `"auto"`: the
 * Worker Loader isolate where the runtime enforces its limits (measured once, auto.ts), QuickJS
 * where it does not or there is no `LOADER` binding. `"auto"` resolves once the measure is known.
 */
export function pickExecutor(choice: unknown, workerEnv: Readonly<Record<string, unknown>>): SandboxExecutor | Promise<SandboxExecutor> {
  const name = choice ?? settingOf(workerEnv, "WEFT_SANDBOX");
  if (name === "quickjs") return quickjs;
  if (name === "auto" && choice === undefined) {
    const loader = loaderOf(workerEnv);
    if (!loader) return quickjs;
    return loaderEnforcesLimits(loader).then((enforced) => (enforced ? isolateExecutor(loader) : quickjs));
  }
  if (name !== "isolate") throw new WeftError("invalid_request", `sandbox: expected "quickjs" or "isolate", got ${JSON.stringify(name)}`, { path: ["sandbox"] });
  const loader = loaderOf(workerEnv);
  if (!loader) throw new WeftError("capability_missing", 'the "isolate" sandbox needs a Worker Loader binding named LOADER ([[worker_loaders]] in wrangler.toml)');
  return isolateExecutor(loader);
}

function loaderOf(workerEnv: Readonly<Record<string, unknown>>): WorkerLoader | undefined {
  const loader = workerEnv.LOADER as WorkerLoader | undefined;
  return loader && typeof loader.get === "function" ? loader : undefined;
}

function isolateExecutor(loader: WorkerLoader): IsolateExecutor {
  let executor = isolates.get(loader);
  if (!executor) isolates.set(loader, (executor = new IsolateExecutor(loader)));
  return executor;
}

/**
 * Starts a run; see `ThreadState.runCode`. The handle is the outcome's promise itself, with `id`,
 * `result` and `cancel` on it: awaiting it costs no extra step.
 */
export function startCodeExecution(source: unknown, options: CodeExecutionOptions | undefined, host: CodeHost): CodeExecution {
  const id = `code_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
  const cancellation = new Cancellation().follow(host.signal);
  const result = runToOutcome(id, source, options, host, cancellation);
  return Object.assign(result, { id, result, cancel: () => cancellation.cancel() });
}

function runToOutcome(id: string, source: unknown, options: CodeExecutionOptions | undefined, host: CodeHost, cancellation: Cancellation): Promise<CodeExecutionResult> {
  const started = performance.now();
  const startedAt = Date.now();
  let outcome: Promise<CodeExecutionResult>;
  try {
    const { executor, request } = prepare(id, source, options ?? {}, host, cancellation);
    // Never throws; its session releases the cancellation. The deadline starts with the run.
    outcome = executor instanceof Promise ? executor.then((e) => e.run(request)) : executor.run(request);
  } catch (error) {
    cancellation.release();
    outcome = Promise.resolve({
      status: "error",
      error: error instanceof WeftError ? `${error.code}: ${error.message}` : describeError(error),
      logs: [],
      durationMs: performance.now() - started,
      memoryLimitBytes: MEMORY_CEILING_BYTES,
      executor: options?.sandbox === "isolate" ? "isolate" : "quickjs",
    });
  }
  if (host.finished) {
    const tell = host.finished.bind(host);
    outcome = outcome.then((done) => {
      tell({ executionId: id, ...(host.callId ? { callId: host.callId } : {}), executor: done.executor, status: done.status, startMs: startedAt, endMs: startedAt + done.durationMs });
      return done;
    });
  }
  if (options?.report !== true) return outcome;
  return outcome.then((done) => {
    host.emit("code_finished", { executionId: id, ...(host.callId ? { callId: host.callId } : {}), status: done.status, durationMs: done.durationMs, ...(done.error ? { error: done.error } : {}) });
    return done;
  });
}

function invalid(path: string, message: string): WeftError {
  return new WeftError("invalid_request", `${path}: ${message}`, { path: path.split(".") });
}

function plainObject(value: unknown, path: string): Record<string, unknown> {
  if (value === undefined) return {};
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw invalid(path, "expected an object");
  return value as Record<string, unknown>;
}

/** Checks options and builds the executor's request; throws `WeftError` naming the option. */
function prepare(id: string, source: unknown, options: CodeExecutionOptions, host: CodeHost, cancellation: Cancellation): { executor: SandboxExecutor | Promise<SandboxExecutor>; request: SandboxRequest } {
  if (typeof source !== "string") throw invalid("source", "expected a string of ES module code");
  for (const key of Object.keys(plainObject(options, "options"))) if (!OPTION_NAMES.has(key)) throw invalid(key, `unknown option; options are ${[...OPTION_NAMES].join(", ")}`);
  const executor = pickExecutor(options.sandbox, host.workerEnv);
  const language = options.language ?? "javascript";
  if (language !== "javascript" && language !== "typescript") throw invalid("language", 'expected "javascript" or "typescript"');
  const filename = options.filename ?? (language === "typescript" ? "code.ts" : "code.js");
  if (typeof filename !== "string" || !PATH.test(filename)) throw invalid("filename", "expected a relative file name such as code.js");
  const compile = (text: string, file: string) => (language === "typescript" ? stripTypes(text, file) : text);

  const modules: Record<string, string> = {};
  const texts = [source];
  for (const [key, text] of Object.entries(plainObject(options.modules, "modules"))) {
    const path = key.startsWith("./") ? key.slice(2) : "";
    if (!PATH.test(path) || path === filename) throw invalid(`modules.${key}`, "expected a relative path such as ./math.js, other than the entry file");
    if (typeof text !== "string") throw invalid(`modules.${key}`, "expected module source text");
    texts.push(text);
    modules[path] = compile(text, path);
  }
  // At most 3 UTF-8 bytes per UTF-16 unit: short code is not encoded just to be measured.
  const units = texts.reduce((sum, text) => sum + text.length, 0);
  const sourceBytes = units * 3 <= MAX_VALUE_BYTES ? units : texts.reduce((sum, text) => sum + byteLength(text), 0);
  if (sourceBytes > MAX_VALUE_BYTES) throw new WeftError("payload_too_large", `the code is ${sourceBytes} bytes, over the ${MAX_VALUE_BYTES}-byte cap`, { path: ["source"] });

  const execute = options.execute ?? { fn: "default", args: [] };
  if (typeof execute.fn !== "string" || execute.fn === "") throw invalid("execute.fn", "expected the name of an exported function");
  const args = execute.args ?? [];
  if (!Array.isArray(args)) throw invalid("execute.args", "expected an array");

  const globals = plainObject(options.globals, "globals");
  for (const key of Object.keys(globals)) if (!IDENTIFIER.test(key)) throw invalid(`globals.${key}`, "expected an identifier");

  const memory = options.memoryLimitBytes;
  if (memory !== undefined && (!Number.isSafeInteger(memory) || memory <= 0)) throw invalid("memoryLimitBytes", "expected a positive integer of bytes");
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs <= 0 || timeoutMs > MAX_TIMEOUT_MS) throw invalid("timeoutMs", `expected milliseconds from 1 to ${MAX_TIMEOUT_MS}`);

  const where = host.callId ? { callId: host.callId } : {};
  return {
    executor,
    request: {
      filename,
      source: compile(source, filename),
      modules,
      execute: { fn: execute.fn, args },
      globals,
      imports: importsOf(options.imports, modules, host),
      timeoutMs,
      memoryLimitBytes: Math.min(memory ?? MEMORY_CEILING_BYTES, MEMORY_CEILING_BYTES),
      maxLogBytes: MAX_LOG_BYTES,
      maxResultBytes: MAX_VALUE_BYTES,
      fetchAllow: fetchAllowOf(options.fetch),
      scope: host.scope,
      ...(host.owner ? { owner: host.owner } : {}),
      cancellation,
      ...(options.report === true
        ? {
            onLog: (level: string, text: string) => host.emit("code_log", { executionId: id, ...where, level, text }),
            onProgress: (data: unknown) => host.emit("code_progress", { executionId: id, ...where, data }),
          }
        : {}),
    },
  };
}

/** Host modules: a tool list becomes async functions through the dispatch pipeline. */
function importsOf(imports: CodeExecutionOptions["imports"], modules: Record<string, string>, host: CodeHost): Record<string, HostModule> {
  const out: Record<string, HostModule> = {};
  for (const [specifier, spec] of Object.entries(plainObject(imports, "imports"))) {
    if (!/^[a-z][\w:.-]*$/i.test(specifier) || Object.hasOwn(modules, specifier)) throw invalid(`imports.${specifier}`, "expected a bare module name such as tools");
    if (Array.isArray(spec)) {
      const table: Record<string, (input?: unknown) => Promise<unknown>> = {};
      for (const name of spec) {
        if (typeof name !== "string") throw invalid(`imports.${specifier}`, "expected tool names");
        host.checkTool(name); // refuses a tool outside the caller's `uses` before anything runs
        table[name] = (input?: unknown) => callTool(host, name, input);
      }
      out[specifier] = table;
      continue;
    }
    const table = plainObject(spec, `imports.${specifier}`);
    for (const [name, fn] of Object.entries(table)) {
      if (!IDENTIFIER.test(name) || typeof fn !== "function") throw invalid(`imports.${specifier}.${name}`, "expected a function under an identifier");
    }
    out[specifier] = table as HostModule;
  }
  return out;
}

/** A tool as the sandbox sees it: resolves with the result (parsed when it is JSON), rejects with its error. */
async function callTool(host: CodeHost, name: string, input: unknown): Promise<unknown> {
  host.checkTool(name);
  const args = input === undefined ? {} : input;
  if (args === null || typeof args !== "object" || Array.isArray(args)) throw new TypeError(`${name}: expected one object argument, the tool's input`);
  const result = await host.invokeTool(name, args as Record<string, unknown>);
  if (result.status === "error") throw new Error(`${name}: ${result.error ?? "the tool failed"}`);
  const text = result.result ?? "";
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Origins `fetch` may reach: `{ allow: ["https://api.example.com"] }`; each must be a bare origin. */
function fetchAllowOf(grant: CodeExecutionOptions["fetch"]): string[] {
  if (grant === undefined) return [];
  const allow = plainObject(grant, "fetch").allow;
  if (!Array.isArray(allow)) throw invalid("fetch.allow", "expected a list of origins such as https://api.example.com");
  return allow.map((origin, i) => {
    let parsed: URL | undefined;
    try {
      parsed = new URL(String(origin));
    } catch {
      parsed = undefined;
    }
    if (!parsed || !/^https?:$/.test(parsed.protocol) || parsed.origin !== String(origin).replace(/\/$/, "")) {
      throw invalid(`fetch.allow.${i}`, `expected an http(s) origin such as https://api.example.com, got ${JSON.stringify(origin)}`);
    }
    return parsed.origin;
  });
}
