/**
 * What an execution needs of its thread: the thread's record and tables, its agent and sides,
 * env, the call runner, events and message writes. `PortWorld` (port-world.ts) implements it over
 * the ports; nothing in src/run/ sees more of the thread than this.
 * @module
 */
import type { EventPayloads, Message } from "../protocol.js";
import type { ScriptSource, StoredStep } from "../models/scripted.js";
import type { CallExecution } from "../calls/call.js";
import type { CallRunner } from "../calls/runner.js";
import type { LedgerRecord } from "../ports/ledger.js";
import type { ThreadMeta, ThreadTables } from "../ports/store.js";
import type { AccountNotices, ChildThreads } from "../ports/threads.js";
import type { ToolCatalog } from "../tools/catalog.js";
import type { ExecutionState } from "../tools/thread-state.js";
import type { UserEnvSource } from "../secrets/env.js";
import type { ThreadMeter } from "../usage/meter.js";
import type { AgentDefinition, EnvDefault, Registry, ResolvedSide } from "./agent.js";
import type { HistorySummaries } from "./compaction.js";
import type { NewTurnMessage } from "./messages.js";
import type { ScheduleInfo, SchedulePage, SchedulePageOptions } from "../schedules/info.js";
import type { RunInfo } from "../background/info.js";
import type { CodeRunEnd } from "../sandbox/run-code.js";
import type { Redactor } from "../secrets/redact.js";

/** A background run (src/background/info.ts). */
export type { RunInfo } from "../background/info.js";

/** The thread's schedules as a tool's `state` reaches them (src/schedules/schedules.ts implements it). */
export interface ScheduleControl {
  create(input: unknown, owner: string | null): Promise<ScheduleInfo>;
  cancel(scheduleId: string): ScheduleInfo;
  page(options?: SchedulePageOptions): SchedulePage;
  /** The thread's background runs (src/background/runs.ts). */
  readonly runs?: RunControl;
}

/** The thread's background runs, as the agent tool and a tool's `state.runs` reach them. */
export interface RunControl {
  /** Records a run the call `callId` started in child `childThreadId` (once: a repeat finds it). */
  started(callId: string, agentId: string, childThreadId: string): RunInfo;
  /** The run the call `callId` started, once recorded (its child was made before it is). */
  startedBy(callId: string): RunInfo | undefined;
  /** The thread's runs, newest first (at most 1000). */
  list(): RunInfo[];
  /** @throws WeftError `run_not_found` (404). */
  get(runId: string): RunInfo;
  /** Waits until each run ended and its completion was delivered, or `timeoutMs` (default 60,000) passed; the runs as they stand then. */
  wait(runIds: string[], timeoutMs?: number): Promise<RunInfo[]>;
  /** Stops a run's child thread; its completion (`stopped`) is delivered like any other. @throws WeftError `run_not_found` (404). */
  stop(runId: string): Promise<RunInfo>;
}

/** The thread's tables as a run reads and writes them: the store port, compaction summaries and the model script. */
export interface RunTables extends ThreadTables {
  /** Compaction summaries of the thread's own conversation (the newest is read). */
  readonly summaries: HistorySummaries;
  /** The steps the scripted model plays, and more of them added (a posted message's `script`). */
  readonly script: ScriptSource & { add(steps: readonly StoredStep[]): void };
  /** The call journal's rows, read by id. */
  readonly calls: { get(callId: string): LedgerRecord | undefined };
  /** Whether a call id is in use in the thread (a model may reuse one). */
  callIdTaken(id: string): boolean;
}

/** What an execution (a turn, a nested prompt or agent run, a tool's `ThreadState`) needs of its thread. */
export interface RunWorld {
  /** What the thread was created with. */
  readonly meta: ThreadMeta;
  /**
   * True once the thread was removed (`DELETE /threads/:id`, a scratch thread's end). Code of the
   * thread still running then (a tool that ignored its signal, a predicate or hook still waiting)
   * keeps this world, whose tables, journal, events and schedules then refuse every use with
   * `thread_not_found`: the rows they reach may belong to a thread made again on the same id.
   */
  readonly removed: boolean;
  readonly store: RunTables;
  readonly registry: Registry;
  /** The thread's agent. */
  readonly agent: AgentDefinition;
  /** The agent's sides, side a first (one entry for a one-sided agent). */
  readonly sides: ResolvedSide[];
  /** Side a's tools: what direct calls and `GET /v1/tools` see. */
  readonly catalog: ToolCatalog;
  /** The Worker's vars and secrets (the last level of env resolution). */
  readonly workerEnv: Readonly<Record<string, unknown>>;
  /** The value with every secret of the thread replaced (what a model or client may see of it). */
  readonly redact: <T>(value: T) => T;
  /** The thread's redactor now (`redact` is its `value`; files are stored through it). */
  readonly redactor: () => Redactor;
  /** The user-account level of env resolution. */
  readonly userEnv: UserEnvSource;
  /** Every tool a run of the thread may meet (every side's and prompt's), to judge stored calls. */
  readonly callables: { everything(): ToolCatalog; prepare?(execution: CallExecution | null | "everywhere"): Promise<void> };
  /** Child agents' threads and the owner's account (the threads port). */
  readonly peers: ChildThreads & AccountNotices;
  /** Every way the thread's calls move. */
  readonly calls: CallRunner;
  /** Meters the thread's model requests: budgets and the usage ledger (src/usage/); absent: not metered. */
  readonly meter?: ThreadMeter;
  /**
   * @throws WeftError `agent_not_found` when this deployment no longer has the thread's agent: the
   * thread is read and deleted as usual, but nothing that needs the agent runs (src/run/gone-agent.ts).
   */
  requireAgent(): void;
  /** The side `side` of the agent (side a when the agent has one side). */
  side(side?: "a" | "b"): ResolvedSide;
  /** A side's system prompt for this thread's `arguments`. */
  system(side?: "a" | "b"): string | undefined;
  /**
   * Env defaults of the prompt in force: the last of `promptPath` (the running prompt), else
   * side a's prompt file; undefined for an inline side.
   */
  promptEnv(execution?: ExecutionState): Readonly<Record<string, EnvDefault>> | undefined;
  /** The tools offered where `execution` runs (its prompt, else its side; side a at rest). */
  catalogFor(execution: CallExecution | null): ToolCatalog;
  /**
   * Stores messages through the create-message hooks; resolves once they are stored. `stop` (an
   * admission's, outside any execution) ends the wait for a hook still running when it fires, as
   * the execution's signal does inside one.
   */
  createMessages(execution: CallExecution | null, messages: NewTurnMessage[], also?: (stored: readonly Message[]) => void, stop?: AbortSignal): Promise<Message[]>;
  /** Appends a message and emits `message_created`. */
  appendMessage(message: NewTurnMessage): Message;
  /** Appends messages in one transaction (with `also` inside it), then emits `message_created`. */
  appendMessages(messages: NewTurnMessage[], also?: (stored: readonly Message[]) => void): Message[];
  /** Stores (redacted) and broadcasts one built-in event. */
  emit<K extends keyof EventPayloads>(type: K, data: EventPayloads[K]): void;
  /** Emits a tool's custom event. */
  emitCustom(event: string, data: unknown): void;
  /** Resolves once every write so far is durable. */
  flush(): Promise<void>;
  /** A new time-ordered id for a call, turn or flow. */
  newId(prefix: string): string;
  /** The thread's schedules; absent where the thread has none to offer (a test's world). */
  schedules?: ScheduleControl;
  /** Told of each `state.runCode` run's end, when the thread makes spans (src/usage/tracer.ts); absent otherwise. */
  readonly traceCode?: (run: CodeRunEnd) => void;
}
