/**
 * What the dispatch pipeline needs from the thread around it, and what a call ends with.
 * @module
 */
import type { WeftError } from "../errors.js";
import type { CallSource, CallStatus, EventPayloads, ToolResult } from "../protocol.js";
import type { Deadlines } from "./attempt.js";
import type { CompiledTool, ToolCatalog } from "../tools/catalog.js";
import type { CallJournal, JournalEntry } from "../tools/journal.js";
import type { FileSink } from "./size.js";
import type { Judged } from "../tools/judge.js";
import type { ExecutionState, ThreadState } from "../tools/thread-state.js";
import type { Effect } from "../tools/types.js";

/**
 * Points where the crash matrix injects a restart ("inside execute" is the tool's own):
 * before and after the journal row, after the effect, while the result is recorded (before it is
 * durable; the hook must act synchronously there), after the result is recorded (before the turn
 * adds its tool message), at the start of restart recovery, and before each queued call drains.
 */
export type CrashPoint = "before_journal" | "after_journal" | "after_effect" | "while_recording" | "after_result" | "recovering" | "queue_drain";

/**
 * The run a call belongs to, as the pipeline needs it; `src/run/execution.ts` builds the full value.
 * A call made outside any run (direct, queued at rest, approved by a person) has none.
 */
export interface CallExecution {
  readonly flowId: string;
  /** 0 for a turn; one more for each prompt or agent run it is nested in (messages it writes carry it). */
  readonly depth: number;
  /** Fires when the run is stopped. */
  readonly signal: AbortSignal;
  /** Handed to tools as `state.execution`. */
  readonly state: ExecutionState;
  /** Handed to tools as `state.context`: shared by every call of the run. */
  readonly context: Record<string, unknown>;
}

/** The thread as the pipeline sees it, bound to the execution its calls run under. */
export interface DispatchHost {
  /** `<branchId>` of effect keys; a thread is its own branch unless forked. */
  readonly branchId: string;
  readonly catalog: ToolCatalog;
  readonly journal: CallJournal;
  /** Stores and broadcasts an event. */
  emit<K extends keyof EventPayloads>(type: K, data: EventPayloads[K]): void;
  /** The run these calls belong to, or null outside any run. */
  readonly execution: CallExecution | null;
  /** The `ThreadState` handed to `execute`, bound to this call (for `uses`, queue parent) and run. */
  stateFor(call: { callId: string; tool: CompiledTool; turnId?: string }): ThreadState;
  /** The execution's signal, fired when the run is stopped; null outside any run (nothing stops a call at rest). */
  readonly signal: AbortSignal | null;
  /** Dry-run thread: only reads execute. */
  readonly dryRun: boolean;
  /** ISO-8601 instant the thread is frozen at, for `timeArgs`. */
  readonly asOf?: string;
  /** Bytes of result text the model sees. */
  readonly resultCapBytes: number;
  readonly files: FileSink;
  /**
   * Like `journal.insert(entry)` then `emit("tool_call_started", started)`, but may keep both in
   * memory while the current synchronous work goes on: a call that answers within it then stores
   * its row with its result in one statement, and its two events in one. `entry` is null when the
   * row is written already (anything but a fresh read), `started` null when it was announced while
   * its arguments streamed. Whatever else reads or writes the calls or the events stores them
   * first, and they are stored before the synchronous work ends in any case, so they commit as an
   * insert made now would.
   */
  holdStart?(entry: JournalEntry | null, started: EventPayloads["tool_call_started"] | null): void;
  /** Resolves once every write so far is durable: the journal row lands before `execute` runs. */
  flush(): Promise<void>;
  /**
   * `journal.insert(entry)` then `flush()`, in one: while a sync is under way the row may wait in
   * memory and be written just before the next sync starts, which its call would wait for anyway,
   * so the rows of calls that arrive during one commit share the next (group commit). Readers of
   * the journal find the row meanwhile as if inserted. Throws or rejects with what the insert threw.
   */
  journalDurably?(entry: JournalEntry): Promise<void>;
  /** Waits between retry attempts; never inside a held lock. */
  sleep(ms: number): Promise<void>;
  /** Deadline of one attempt of `execute` for tools without `timeoutMs` (`WEFT_CALL_TIMEOUT_MS`). */
  readonly callTimeoutMs?: number;
  /** Watches the deadlines of the thread's attempts of `execute` (one timer for all of them). */
  readonly deadlines: Deadlines;
  /**
   * Runs the thread's `tool_call_started` hook once the call is journaled, before `execute`. When
   * it throws, the call is recorded failed (it never runs) and the error goes on to the caller.
   */
  beforeExecute?(started: EventPayloads["tool_call_started"]): Promise<void>;
  /** Test seam: called at each crash point; the crash matrix aborts the object here. */
  checkpoint?(point: CrashPoint, call: { callId: string; toolName: string; effect?: Effect }): void | Promise<void>;
}

/** One call to dispatch. `args` is raw model text or an already-structured value. */
export interface CallRequest {
  callId: string;
  toolName: string;
  args: { text: string } | { value: unknown };
  source: CallSource;
  turnId?: string;
  parentCallId?: string;
  /** The model's stream ended inside this call's arguments (`length`: its output-token limit did): it is refused, never run. */
  cutOff?: boolean | "length";
  /** Bytes of arguments too large to store (`args` is then empty): it is refused, never run. */
  oversized?: number;
  /** Its `tool_call_started` went out while its arguments streamed; it is not sent again. */
  announced?: boolean;
  /**
   * The call id was minted for this request (never sent by a client or a model), so no row can
   * hold it yet: the pipeline does not look for one.
   */
  fresh?: boolean;
  /**
   * What `validateInput` gave for `args.value` against this tool, when the caller checked it
   * before dispatch (a direct call does, to answer 400 before anything is stored): the validate
   * stage takes it instead of checking the same value again. `effect` is the effect predicate's
   * judgement of that input when the caller needed it first (a direct call during a turn): the
   * predicate is author code, asked once per call.
   */
  validated?: { input: unknown; effect?: Judged<Effect> };
}

/** How a call stands after dispatch: final, or waiting for a person. */
export interface CallOutcome {
  callId: string;
  toolName: string;
  /** Arguments as received, for history entries of queued calls. */
  argsText: string;
  status: CallStatus;
  /** False while the call awaits approval or is parked. */
  final: boolean;
  result: ToolResult;
  isError: boolean;
  /** Code of a refusal before execute (`unknown_tool`, `invalid_tool_input`). */
  errorCode?: WeftError["code"];
  /** Details of the refusal, such as the failing `path`. */
  errorDetails?: Record<string, unknown>;
  durationMs: number;
  attempts: number;
  /** A successful call of an `endsTurn` tool. */
  endsTurn: boolean;
  stubbed?: boolean;
  /** Thread file holding the full result when the recorded one was capped. */
  fullResultPath?: string;
}

/** `effectKey = <branchId>:<callId>` (weft's effect table), stable across retries and restarts. */
export function effectKeyOf(branchId: string, callId: string): string {
  return `${branchId}:${callId}`;
}
