/**
 * The call journal: one row per call id, moved through its states and given a final result at
 * most once, with a way to have a row durable before the call's effect runs.
 * @module
 */
import type { CallRecord, CallSource, CallStatus, ToolResult } from "../protocol.js";
import type { StartedAs } from "../tools/started-as.js";

/** The effect class and its setting a row is started under, as stored (`idempotent:60000`), for the port's implementations. */
export type { StartedAs } from "../tools/started-as.js";

/** A new journal row: a call as the pipeline first records it. */
export interface JournalEntry {
  /** The call's id, unique in the thread: a second row with the same id is refused. */
  callId: string;
  /** The tool's name as the catalog knows it. */
  toolName: string;
  /** Which way the call came in (a model step, a direct call, `invokeTool`, `queueTool`, ...). */
  source: CallSource;
  /** `queued`: not run yet (waits for the queue, a decision or validation); `started`: its first attempt begins now (attempts 1). */
  status: "queued" | "started";
  /** The arguments as the caller sent them (JSON text, kept verbatim). */
  argsText: string;
  /** The validated input, when known; absent for a call refused before validation. */
  input?: unknown;
  /** `<branchId>:<callId>`: the key a tool's effect is deduplicated by. */
  effectKey: string;
  /** The turn the call belongs to; absent for a direct call. */
  turnId?: string;
  /** The call that queued or invoked this one. */
  parentCallId?: string;
  /** With status `started`: the effect class and its setting it starts under (see `LedgerRecord.effect`). */
  effect?: StartedAs;
}

/**
 * A stored call: the public call record, with the parent that queued or invoked it and `effect`,
 * the class and its setting (dedup window, finality) its row was last started under, in the form
 * `StartedAs` defines (absent until it starts, and on rows journaled before weft stored it): what
 * may have run, whatever a later deploy declares.
 */
export type LedgerRecord = CallRecord & { parentCallId?: string; effect?: StartedAs };

/** What a final result records besides its status and result. */
export interface FinishDetails {
  /** Attempts of `execute` made, the last included (0 for a call that never ran). */
  attempts: number;
  /** Milliseconds from the call's start to its result. */
  durationMs: number;
  /** A dry run answered it without running it. */
  stubbed?: boolean;
  /** The weft error code of a failure, when it has one. */
  errorCode?: string;
  /** Structured details of that error. */
  errorDetails?: Record<string, unknown>;
  /** Where the full result was stored when the model saw it capped (a thread file path). */
  fullResultPath?: string;
  /** A write that failed after its request may have gone out: whether the effect happened is unknown. */
  outcome?: "unknown";
}

/** Who decided a call waiting for a person: an approval, or a denial or settlement. */
export type Decision = { approvedBy: string } | { decidedBy: string };

/** The call journal as the dispatch pipeline sees it today (the `CallStore` of a thread implements it). */
export interface CallJournal {
  /** The call's row, or undefined when it has none. */
  get(callId: string): LedgerRecord | undefined;
  /** Stores a new row. @throws when the id has a row already (nothing written). */
  insert(entry: JournalEntry): void;
  /** Marks an attempt started, durably, before `execute` runs: status `started` under `effect`, attempts + 1; a final row is left as it is. */
  start(callId: string, input: unknown, effect: StartedAs): void;
  /** One more attempt of a started call (a retry); any other row is left as it is. */
  attempt(callId: string): void;
  /** Holds a validated call for a person's approval, bound to `argsHash` (hex HMAC-SHA-256 of its arguments under the thread's key: `argsHashOf`). */
  awaitApproval(callId: string, input: unknown, argsHash: string): void;
  /** Records who approved the call. */
  setApprovedBy(callId: string, who: string): void;
  /** Records who denied or settled a call. */
  setDecidedBy(callId: string, who: string): void;
  /** Parks a call whose outcome is uncertain (status `parked`, with `reason`); a person settles it. A final row is left as it is. */
  park(callId: string, reason: string): void;
  /** Counts one more run of a started call cut short by a restart; returns the new count. @throws when the call has no row. */
  restarted(callId: string): number;
  /**
   * Records the final result once.
   * @returns false when the row already had a final result: nothing is written and the first result stands.
   */
  finish(callId: string, status: CallStatus, result: ToolResult, details: FinishDetails): boolean;
}

/**
 * The ledger: the journal's transitions and its commit machinery in one place, so the ordering
 * rules (held rows, the settle window, group commit) live behind it whole.
 *
 * Ordering: rows are ordered by when they went in (`begin`, `beginDurably`, or a held row's
 * write); a held or deferred row is written before any other statement of the ledger, so every
 * reader and every later row finds it as if it had been written when begun.
 */
export interface Ledger {
  /** The call's row (a held or deferred one included), or undefined when it has none. */
  get(callId: string): LedgerRecord | undefined;
  /** Stores a new row now, in the current commit. @throws when the id has a row already. */
  begin(entry: JournalEntry): void;
  /**
   * Takes a fresh `started` row that needs no durability before `execute` (a read) without
   * writing it yet: when `finish` comes first, the row goes in with its result in one write. It
   * is written by any other statement of the ledger first, and in any case within the settle
   * window (a few microtask turns), so it commits as a row begun now would.
   */
  beginHeld(entry: JournalEntry): void;
  /**
   * Stores a new row and resolves once it is durable (group commit: rows begun while a sync runs
   * are written together right before the next sync and share it; no row is answered by a sync
   * that started before it was begun). The row is visible to `get` at once.
   * @throws (rejects) with what the insert threw (a duplicate id); that row's call must not run.
   */
  beginDurably(entry: JournalEntry): Promise<void>;
  /** {@inheritDoc CallJournal.start} */
  start(callId: string, input: unknown, effect: StartedAs): void;
  /** {@inheritDoc CallJournal.attempt} */
  attempt(callId: string): void;
  /** {@inheritDoc CallJournal.awaitApproval} */
  awaitApproval(callId: string, input: unknown, argsHash: string): void;
  /** Records who approved (`approvedBy`) or who denied or settled (`decidedBy`) the call. */
  decide(callId: string, decision: Decision): void;
  /** {@inheritDoc CallJournal.park} */
  park(callId: string, reason: string): void;
  /** {@inheritDoc CallJournal.restarted} */
  restarted(callId: string): number;
  /**
   * Records the final result once (a held row goes in with it).
   * @returns false when the row already had a final result: nothing is written and the first result stands.
   */
  finish(callId: string, status: CallStatus, result: ToolResult, details: FinishDetails): boolean;
  /** Resolves once every write so far is durable (shares syncs with `beginDurably`). */
  flush(): Promise<void>;
}

/** What the runner asks the ledger about many calls at once. Lists are in the order rows went in. */
export interface LedgerQueries {
  /** False only when no call can be queued (none was found since the last queued row went in): a drain may skip `queued`. */
  mayHaveQueued(): boolean;
  /** Unfinished `queued` calls, oldest first. */
  queued(): LedgerRecord[];
  /** Calls `parentCallId` queued (`queueTool`), then the calls those queued, each level oldest first. */
  queuedBy(parentCallId: string): LedgerRecord[];
  /** Whether a call `invokeTool`d by `parentCallId` waits for a person. */
  invokedWaiting(parentCallId: string): boolean;
  /** Whether any unfinished call waits for a person (`awaiting_approval` or `parked`). */
  waitForPerson(): boolean;
  /** Whether any call of turn `turnId` waits for a person. */
  turnWaits(turnId: string): boolean;
  /** Calls whose journal says `started` with no result: cut by a restart. */
  unfinished(): LedgerRecord[];
  /** The calls of `callIds` in that order, an id with no row left out; read as iterated, in few statements (not one per id). */
  getMany(callIds: readonly string[]): Iterable<LedgerRecord>;
  /** Calls oldest first, at most `limit` (default 1000) from `offset` (default 0), optionally of one status or any of several; read as iterated. */
  list(limit?: number, offset?: number, status?: CallStatus | readonly CallStatus[]): Iterable<LedgerRecord>;
}
