/**
 * The `ThreadState` contract handed to every tool (the Standard Agents tools API, "ThreadState"). The thread layer
 * implements it; tools and the dispatch pipeline see only this interface.
 * @module
 */
import type { ScheduleOptions } from "../schedules/define.js";
import type { ScheduleInfo, SchedulePage, SchedulePageOptions } from "../schedules/info.js";
import type { RunInfo } from "../background/info.js";
import type { Message, ToolResult } from "../protocol.js";

/**
 * Options of `getMessages`; cost grows with `limit + offset`, not with the thread's history, and a
 * `before`/`after` cursor makes a deep page cost what the first one costs.
 */
export interface GetMessagesOptions {
  /** Maximum messages to return: a whole number from 1 to 1000, default 100 (`PAGE_SIZES` in src/limits.ts); another value is refused with `invalid_request`. */
  limit?: number;
  /** Messages to skip from the start of `order`. */
  offset?: number;
  /** `asc` is oldest first; default `asc`. */
  order?: "asc" | "desc";
  /** Include messages injected with `silent: true`; default false. */
  includeSilent?: boolean;
  /**
   * Only messages nested at most this deep: 0 is the thread's own conversation, 1 adds the
   * messages of prompts it called as tools, and so on. Default: every depth.
   */
  maxDepth?: number;
  /** Only messages with an id below this one (exclusive): page back from the oldest message seen, with `order: "desc"`. */
  before?: number;
  /** Only messages with an id above this one (exclusive): page forward from the newest message seen. */
  after?: number;
}

/** Result of `getMessages`: a page, the total count under the same filter, and whether more follow. */
export interface MessagesResult {
  /** The page, in the requested `order`. */
  messages: Message[];
  /** How many messages match the filters in all (not only this page). */
  total: number;
  /** Whether more messages follow in the page's direction. */
  hasMore: boolean;
}

/** Input of `injectMessage`. */
export interface InjectMessageInput {
  /** Who the message is from; `tool` messages come only from tool results. */
  role: "user" | "assistant" | "system";
  /** The message text; it is stored redacted of the thread's secrets. */
  content: string;
  /** Stored but left out of `getMessages` and `GET /threads/:id/messages` unless `includeSilent` is set; default false. */
  silent?: boolean;
  /** JSON metadata stored with the message. */
  metadata?: Record<string, unknown>;
}

/** State of the running execution (the Standard Agents tools API's `ExecutionState`); `null` on `state.execution` at rest. */
export interface ExecutionState {
  /** The run's id: the turn's id for a turn; a nested prompt or agent run has its own. */
  readonly flowId: string;
  /** The side taking the current step (`a` unless the agent has two sides). */
  readonly currentSide: "a" | "b";
  /** Model steps (request/response cycles) taken so far in this run, both sides together. */
  readonly stepCount: number;
  /** Model steps side a has taken. */
  readonly sideAStepCount: number;
  /** Model steps side b has taken (0 for a one-sided agent). */
  readonly sideBStepCount: number;
  /** True once `stop()` was called or the thread was stopped: no further model step starts. */
  readonly stopped: boolean;
  /** The side whose tool called `stop()`, if one did. */
  readonly stoppedBy?: "a" | "b";
  /** The messages the run's next model request is built from: the token window of the history, with the compaction summary at its head. */
  readonly messageHistory: Message[];
  /** Asks that `side` takes the next step (two-sided agents); kept across a restart or a wait. @throws TypeError for any side but `a` or `b` */
  forceTurn(side: "a" | "b"): void;
  /** Ends the run before its next model step; the calling tool finishes normally. */
  stop(): void;
  /** Fires when the thread is stopped (`POST /threads/:id/stop`) or the run it is nested in is. */
  readonly abortSignal: AbortSignal;
  /** Names of the prompts from the turn down to this run; `[]` for the turn itself. */
  readonly promptPath: string[];
}

/** A host function sandboxed code may import; arguments and result are structured-clone values. */
export type CodeHostFunction = (...args: any[]) => unknown;

/**
 * One importable module of `runCode`: a list of the thread's tool names (each becomes an async
 * function taking the tool's input, run through the dispatch pipeline under the calling tool's
 * `uses`), or a table of host functions by export name.
 */
export type CodeImport = readonly string[] | Readonly<Record<string, CodeHostFunction>>;

/** Options of `runCode` (the Standard Agents tools API's `CodeExecutionOptions`); every field is optional. */
export interface CodeExecutionOptions {
  /** The export to call and its arguments; default `{ fn: "default", args: [] }`. */
  execute?: { fn: string; args?: unknown[] };
  /** Host modules by import specifier, e.g. `{ tools: ["add_note", "list_notes"] }`. */
  imports?: Record<string, CodeImport>;
  /** Values set on the sandbox's `globalThis` (structured-clone values). */
  globals?: Record<string, unknown>;
  /** Other ES modules by relative path, e.g. `{ "./math.js": "export const add = (a, b) => a + b" }`. */
  modules?: Record<string, string>;
  /** `typescript` strips types first; default `javascript`. */
  language?: "javascript" | "typescript";
  /** Memory limit in bytes; clamped to the 128 MB ceiling, and the effective limit is reported. */
  memoryLimitBytes?: number;
  /** The entry module's file name in stack traces; default `code.js` (`code.ts` for TypeScript). */
  filename?: string;
  /** Stream console output and `reportProgress(data)` calls as thread events. */
  report?: boolean;
  /** Wall-clock deadline in milliseconds; default 5000, at most 60000; counted from when the run starts (a QuickJS run may first wait its turn on the engine, at most 60000 ms). */
  timeoutMs?: number;
  /**
   * Origins the code may `fetch` (`{ allow: ["https://api.example.com"] }`), through a host-side
   * gateway that refuses every other origin and follows no redirect. Absent: no network at all.
   */
  fetch?: { allow: string[] };
  /** Where the code runs: `quickjs` or `isolate` (Worker Loader; needs a `LOADER` binding); default `WEFT_SANDBOX` (`auto`: the isolate where Cloudflare enforces its limits). */
  sandbox?: "quickjs" | "isolate";
}

/** How a `runCode` run ended; `durationMs` is wall-clock (with any wait for the QuickJS engine), `memoryLimitBytes` the limit in force. */
export interface CodeExecutionResult {
  /** `success`, or how it failed: the code threw (`error`), ran past `timeoutMs`, past its memory limit, or was cancelled. */
  status: "success" | "error" | "timeout" | "memory" | "cancelled";
  /** The called export's resolved value, on `success`. */
  value?: unknown;
  /** `Name: message` (and a stack when there is one) on any other status. */
  error?: string;
  /** Console output in call order; levels other than `log` are prefixed `[level]`. */
  logs: string[];
  /** Wall-clock time of the run, in milliseconds. */
  durationMs: number;
  /** The memory limit in force, in bytes (the requested one clamped to the ceiling). */
  memoryLimitBytes: number;
  /** The executor that ran the code. */
  executor: "quickjs" | "isolate";
}

/** A started sandboxed run: await it (or `result`) for the outcome; `cancel()` ends it early. */
export interface CodeExecution extends PromiseLike<CodeExecutionResult> {
  /** Names the run in `code_*` events. */
  readonly id: string;
  /** Resolves with the outcome; never rejects (a failure is a `status`). */
  readonly result: Promise<CodeExecutionResult>;
  /** Ends the run with `cancelled` (no effect once it has ended). */
  cancel(): void;
}

/**
 * The per-thread API a tool receives as `state` (the Standard Agents tools API). docs/thread-state.md
 * has an example for every member.
 */
export interface ThreadState {
  /** The thread's id, 64 hex characters. */
  readonly threadId: string;
  /** The agent the thread runs (the file name under `agents/agents/`, or `default`). */
  readonly agentId: string;
  /** The `userId` the thread belongs to, or null. */
  readonly userId: string | null;
  /** When the thread was created, in milliseconds since the epoch. */
  readonly createdAt: number;
  /** The `arguments` object given when the thread was created; `{}` when none was. */
  readonly arguments: Record<string, unknown>;
  /** The running execution (a turn, or a nested prompt or agent); null when the call runs at rest, such as a direct call. */
  execution: ExecutionState | null;
  /** Scratch values shared by the calls of one execution; a fresh object for each call at rest. */
  context: Record<string, unknown>;

  /** One page of the thread's history: `limit` (default 100), `offset`, `order`, `includeSilent`. */
  getMessages(options?: GetMessagesOptions): Promise<MessagesResult>;
  /** Appends a `user`, `assistant` or `system` message and resolves to the stored message. */
  injectMessage(message: InjectMessageInput): Promise<Message>;
  /** An agent's definition by file name. @throws WeftError `agent_not_found` */
  loadAgent<T = unknown>(name: string): Promise<T>;

  /** Queue a call to run after the current tool, durably; `uses` is enforced. */
  queueTool(toolName: string, args: Record<string, unknown>): void;
  /** Run a call now through the dispatch pipeline; `uses` is enforced. */
  invokeTool(toolName: string, args: Record<string, unknown>): Promise<ToolResult>;
  /** Send `{ type: event, data }` to subscribers; built-in event names are refused. */
  emit(event: string, data: unknown): void;

  /** A JSON value stored with the thread, or null when the key was never set. */
  getValue<T = unknown>(key: string): Promise<T | null>;
  /** Stores a JSON value with the thread, durably. */
  setValue(key: string, value: unknown): Promise<void>;

  /**
   * Resolves an environment value: thread, agent, prompt, user account, then Worker. With
   * `{ from: "deployment" }` only the levels the deployment sets answer (agent and prompt defaults,
   * the Worker): read so what says where a request carrying a deployment's credential goes (a base
   * URL, a host), since the thread's and the account's env are the user's, who could otherwise
   * point it, with the Worker's key, at a server of theirs.
   * @throws WeftError `env_not_found` when no level asked holds the name; `invalid_request` for `from` other than `"deployment"`.
   */
  env(propertyName: string, options?: { from?: "deployment" }): Promise<string>;
  /**
   * Whether an environment value is `text` (may be shown) or `secret` (redacted); `secret` for a
   * name no level asked holds. `from` asks the levels {@link ThreadState.env} with the same `from` asks.
   * @throws WeftError `invalid_request` for `from` other than `"deployment"` (never for a name).
   */
  envType(propertyName: string, options?: { from?: "deployment" }): Promise<"text" | "secret">;
  /** Stores an environment value on the thread; a new name is `secret` unless `type` says `text`. */
  setEnv(propertyName: string, value: string, options?: { type?: "text" | "secret" }): Promise<void>;

  /**
   * Runs an ES module in a sandbox (QuickJS by default, or a Worker Loader isolate) and returns a
   * handle at once; it resolves to a {@link CodeExecutionResult} `{ status, value?, error?, logs,
   * durationMs, memoryLimitBytes, executor }`. It never throws or rejects: a bad option (named in
   * `error`), `sandbox: "isolate"` without a `LOADER` binding (`capability_missing: ...`), a throw,
   * the deadline or the memory limit each end it with that `status`.
   */
  runCode(source: string, options?: CodeExecutionOptions): CodeExecution;

  /**
   * Makes a schedule on this thread, owned by the thread's owner (docs/schedules.md): each of its
   * occurrences calls a tool or posts a message for a turn, exactly once.
   * @throws WeftError `invalid_schedule` (with `path`), `too_many_schedules`
   */
  schedule(options: ScheduleOptions): Promise<ScheduleInfo>;
  /** Cancels a schedule of this thread: no occurrence of it fires after this. @throws WeftError `schedule_not_found` */
  cancelSchedule(scheduleId: string): Promise<ScheduleInfo>;
  /**
   * A page of this thread's schedules, in creation order: at most `limit` (1 to 1000, default 100)
   * and 1 MiB of JSON, after `cursor` (the previous page's `nextCursor`; null on the last page).
   * @throws WeftError `invalid_request` (path `limit` or `cursor`)
   */
  listSchedules(options?: SchedulePageOptions): Promise<SchedulePage>;

  /**
   * This thread's background runs (agents with `background: true` called as tools; docs/schedules.md):
   * each one's completion arrives once as a message and a `run_finished` event whatever is done here.
   */
  readonly runs: BackgroundRunsState;
}

/** `state.runs`: the thread's background runs. */
export interface BackgroundRunsState {
  /** Every run, newest first (at most 1000). */
  list(): Promise<RunInfo[]>;
  /** One run. @throws WeftError `run_not_found` */
  get(runId: string): Promise<RunInfo>;
  /** Waits until each run ended and its completion was delivered, or `timeoutMs` (default 60,000 ms) passed; the runs as they stand then. @throws WeftError `run_not_found` */
  wait(runIds: string[], options?: { timeoutMs?: number }): Promise<RunInfo[]>;
  /** Stops a run's child thread; its completion (`stopped`) is delivered like any other. @throws WeftError `run_not_found` */
  stop(runId: string): Promise<RunInfo>;
}
