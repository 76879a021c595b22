/**
 * The one narrow view the call pipeline has of the world: the journal, events, settings, the
 * running execution's own catalog, the `ThreadState` of a call, the tool-call hooks, the crash
 * seam, and durability. The thread implements {@link CallWorld} once; the runner binds it to an
 * execution as a {@link CallContext} for each piece of work. Nothing here reaches the thread's
 * engine or its store beyond these members.
 * @module
 */
import type { CallRecord, CallStatus, EventPayloads } from "../protocol.js";
import type { CompiledTool, ToolCatalog } from "../tools/catalog.js";
import type { CallJournal, JournalEntry } from "../tools/journal.js";
import type { CallLock } from "./lock.js";
import type { ThreadState } from "../tools/thread-state.js";
import type { StartedAs } from "../tools/started-as.js";
import type { Effect } from "../tools/types.js";
import type { Deadlines } from "./attempt.js";
import type { CallExecution } from "./call.js";
import type { FileSink } from "./size.js";

/**
 * Points where the crash matrix injects a restart ("inside execute" is the tool's own):
 * before and after the journal row, after the effect, while the result is recorded (before it is
 * durable; the hook must act synchronously there), after the result is recorded (before the turn
 * adds its tool message), at the start of restart recovery, and before each queued call drains.
 */
export type CrashPoint = "before_journal" | "after_journal" | "after_effect" | "while_recording" | "after_result" | "recovering" | "queue_drain";

/** Test seam of the crash matrix: called at each crash point of the pipeline. */
export type CrashHook = (point: CrashPoint, call: { callId: string; toolName: string; effect?: Effect }) => void | Promise<void>;

/** A stored call with the call that queued or invoked it, or whose nested run made it, and the effect class and setting it last started under (`StartedAs`). */
export type BookedCall = CallRecord & { parentCallId?: string; effect?: StartedAs };

/** The call journal with the reads the runner's queue, recovery and stop need. */
export interface CallBook extends CallJournal {
  get(callId: string): BookedCall | undefined;
  /** False when certainly nothing is queued (a cheap check before a drain). */
  mayHaveQueued(): boolean;
  /** Queued calls, oldest first. */
  queued(): BookedCall[];
  /** Calls queued by call `parentCallId`, in queue order. */
  queuedBy(parentCallId: string): BookedCall[];
  /** Whether any call of turn `turnId` waits for a person (approval or a parked outcome). */
  turnWaits(turnId: string): boolean;
  /** Whether a call invoked by `parentCallId` waits for a person. */
  invokedWaiting(parentCallId: string): boolean;
  /** Whether any unfinished call waits for a person (`awaiting_approval` or `parked`). */
  waitForPerson(): boolean;
  /** Calls started without a result (a restart cut them). */
  unfinished(): BookedCall[];
  list(limit: number, offset: number, status?: CallStatus): Iterable<BookedCall>;
}

/** What the thread's configuration fixes for every call it runs. */
export interface CallSettings {
  /** `<branchId>` of effect keys: one per lifetime of the thread (`ThreadMeta.branchId`). */
  readonly branchId: string;
  /** Dry-run thread: only reads execute. */
  readonly dryRun: boolean;
  /**
   * The host holds every outgoing message until the storage writes before it are confirmed (a
   * Durable Object's output gate): `execute` need not wait for its journal row's commit
   * (src/tools/journal-order.ts).
   */
  readonly outputGate?: boolean;
  /** ISO-8601 instant the thread is frozen at, for `timeArgs`. */
  readonly asOf?: string;
  /** Bytes of result text the model sees. */
  readonly resultCapBytes: number;
  /** The thread's key of argsHash: a random secret kept in its own storage and never answered, read (drawn the first time) when needed. */
  readonly argsKey: () => string;
  /** Deadline of one attempt of `execute` for tools without `timeoutMs` (`WEFT_CALL_TIMEOUT_MS`). */
  readonly callTimeoutMs?: number;
  readonly files: FileSink;
}

/** The thread as the call runner needs it; the Durable Object implements it once. */
export interface CallWorld {
  readonly journal: CallBook;
  /**
   * The one lock per call id, of this lifetime of the thread: its own, so leftover work of a thread
   * removed from the same Durable Object (code that ignored its signal) holds up no call of a
   * thread made again on the id, and a rollback that makes the journal forget its memory frees no lock.
   */
  readonly locks: CallLock;
  readonly settings: CallSettings;
  /** Stores (redacted) and broadcasts an event. */
  emit<K extends keyof EventPayloads>(type: K, data: EventPayloads[K]): void;
  /** See {@link CallContext.holdStart}. */
  holdStart(entry: JournalEntry | null, started: EventPayloads["tool_call_started"] | null): void;
  /** Resolves once every write so far is durable. */
  flush(): Promise<void>;
  /** See {@link CallContext.journalDurably}. */
  journalDurably(entry: JournalEntry): Promise<void>;
  /** Makes sure the thread wakes by itself (an alarm) to drain what was queued. */
  wakeSoon(): void;
  /**
   * The tools offered where `execution` runs (its prompt, else its side; side a at rest);
   * `"everywhere"`: every name of the thread (side b, prompts), for a call found at rest.
   */
  catalogFor(execution: CallExecution | null | "everywhere"): ToolCatalog;
  /**
   * Readies what `catalogFor(execution)` reads that needs I/O (remote MCP servers' tool lists),
   * for calls moved outside a model step: recovery, a person's decision, a direct call. Never throws.
   */
  prepareTools?(execution: CallExecution | null | "everywhere"): Promise<void>;
  /** Whether a direct call's catalog (side a at rest) may hold remote tools, so `prepareTools(null)` is awaited before one. */
  remoteAtRest?: boolean;
  /** The `ThreadState` handed to `execute`, bound to the call (for `uses`, queue parent) and run. */
  stateFor(call: { callId: string; tool: CompiledTool; turnId?: string }, execution: CallExecution | null): ThreadState;
  /** Whether the thread has a `tool_call_started` / `tool_call_finished` hook. */
  hasToolHook(name: "tool_call_started" | "tool_call_finished"): boolean;
  /** Runs that hook; inside a run a throw fails the run (`hook_failed`). */
  toolHook<N extends "tool_call_started" | "tool_call_finished">(execution: CallExecution | null, name: N, data: EventPayloads[N]): Promise<void>;
  /** The crash matrix's seam, read when a context is bound; null outside its tests. */
  readonly crashHook: CrashHook | null;
  /** The stored status of turn `turnId`, if there is one. */
  turnStatus(turnId: string): string | undefined;
}

/** The world as the pipeline sees it, bound to the execution its calls run under. */
export interface CallContext extends CallSettings {
  readonly catalog: ToolCatalog;
  readonly journal: CallBook;
  /** Stores and broadcasts an event. */
  emit<K extends keyof EventPayloads>(type: K, data: EventPayloads[K]): void;
  /** The run these calls belong to, or null outside any run. */
  readonly execution: CallExecution | null;
  /** The `ThreadState` handed to `execute`, bound to this call (for `uses`, queue parent) and run. */
  stateFor(call: { callId: string; tool: CompiledTool; turnId?: string }): ThreadState;
  /** The execution's signal, fired when the run is stopped; null outside any run (nothing stops a call at rest). */
  readonly signal: AbortSignal | null;
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

/** A {@link CallContext} over a world. One is made per piece of work, so its methods live on the prototype. */
class BoundContext implements CallContext {
  readonly branchId: string;
  readonly dryRun: boolean;
  readonly outputGate?: boolean;
  readonly asOf?: string;
  readonly resultCapBytes: number;
  readonly argsKey: () => string;
  readonly callTimeoutMs?: number;
  readonly files: FileSink;
  readonly journal: CallBook;
  readonly signal: AbortSignal | null;
  readonly beforeExecute?: (started: EventPayloads["tool_call_started"]) => Promise<void>;
  readonly checkpoint?: CrashHook;

  constructor(
    private readonly world: CallWorld,
    readonly deadlines: Deadlines,
    readonly execution: CallExecution | null,
    readonly catalog: ToolCatalog,
    private readonly onFinished: ((data: EventPayloads["tool_call_finished"]) => void) | undefined,
  ) {
    const set = world.settings;
    this.branchId = set.branchId;
    this.dryRun = set.dryRun;
    if (set.outputGate) this.outputGate = true;
    if (set.asOf) this.asOf = set.asOf;
    this.resultCapBytes = set.resultCapBytes;
    this.argsKey = set.argsKey;
    if (set.callTimeoutMs !== undefined) this.callTimeoutMs = set.callTimeoutMs;
    this.files = set.files;
    this.journal = world.journal;
    this.signal = execution?.signal ?? null;
    if (world.hasToolHook("tool_call_started")) this.beforeExecute = (started) => world.toolHook(execution, "tool_call_started", started);
    if (world.crashHook) this.checkpoint = world.crashHook;
  }

  emit<K extends keyof EventPayloads>(type: K, data: EventPayloads[K]): void {
    this.world.emit(type, data);
    if (type === "tool_call_finished") this.onFinished?.(data as EventPayloads["tool_call_finished"]);
  }

  holdStart(entry: JournalEntry | null, started: EventPayloads["tool_call_started"] | null): void {
    this.world.holdStart(entry, started);
  }

  stateFor(call: { callId: string; tool: CompiledTool; turnId?: string }): ThreadState {
    return this.world.stateFor(call, this.execution);
  }

  flush(): Promise<void> {
    return this.world.flush();
  }

  journalDurably(entry: JournalEntry): Promise<void> {
    return this.world.journalDurably(entry);
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, ms));
  }
}

/**
 * Binds `world` to `execution` (null: outside any run, so stopping a turn never reaches the call)
 * with `catalog`, the execution's own tools. `onFinished` sees each `tool_call_finished` emitted.
 */
export function bindContext(
  world: CallWorld,
  deadlines: Deadlines,
  execution: CallExecution | null,
  catalog: ToolCatalog,
  onFinished?: (data: EventPayloads["tool_call_finished"]) => void,
): CallContext {
  return new BoundContext(world, deadlines, execution, catalog, onFinished);
}
