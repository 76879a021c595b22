/**
 * Call records: one row per call id, written before `execute` (the journal) and again with the
 * final result. A row with a final status is never rewritten, so a call id has exactly one result.
 * @module
 */
import { type CallStatus, PERSON_WAIT_STATUSES, type ToolResult, isFinalStatus } from "../../protocol.js";
import type { CallJournal, StartedAs, FinishDetails, JournalEntry, LedgerQueries } from "../../ports/ledger.js";
import { type CallRow, SAME_AS_ARGS, type StoredCall, UNFINISHED, finishRow, inputColumn, insertRow, resultValues, rowValues, toRecord } from "./call-row.js";

/** A stored call, with the parent that queued or invoked it (defined with the row it is read from). */
export type { StoredCall } from "./call-row.js";

/** The newest call's `ord`, read once per instance (or by the wake read, `ThreadStore.wake`). */
export const LAST_ORD_SQL = "SELECT ord FROM calls ORDER BY ord DESC LIMIT 1";
/** Whether any unfinished call is queued. */
export const QUEUED_SQL = `SELECT 1 FROM calls WHERE status = 'queued' AND ${UNFINISHED} LIMIT 1`;
const PERSON_WAIT_SQL = `(${PERSON_WAIT_STATUSES.map((s) => `'${s}'`).join(", ")})`;
/** Starts an attempt (`start`): input stored once when it is the argument text, and the effect class it runs under. */
const START_SQL = `UPDATE calls SET status = 'started', input = CASE WHEN args_text = ?1 THEN '${SAME_AS_ARGS}' ELSE ?1 END, attempts = attempts + 1, started_at = ?, effect = ?
  WHERE call_id = ? AND ${UNFINISHED}`;

/** Ids `getMany` reads a statement: each at most 256 characters (`MAX_CALL_NAME_CHARS`), so their JSON fits a 2 MB value. */
const IDS_PER_READ = 1000;

/** A new call row (the journal entry of the dispatch pipeline). */
export type NewCall = JournalEntry;

/** A journal row waiting in memory for the thread's next commit (see `CallStore.defer`). */
export interface DeferredRow {
  readonly call: NewCall;
  readonly now: number;
  /** Set when the row could not be stored (its call must not run): what the insert threw. */
  failure?: unknown;
}

/** What a final result records besides its status and result (defined with the ledger port). */
export type { FinishDetails } from "../../ports/ledger.js";

/** Reads and writes call rows. */
export class CallStore implements CallJournal, LedgerQueries {
  /**
   * False only when no row can be queued: the last look found none and no queued row was
   * inserted since (only `insert` makes a queued row). Spares every call the queue query.
   */
  private maybeQueued = true;
  /** Whether any call was queued by another (`queueTool`); undefined until first asked. */
  private queueChildren: boolean | undefined = undefined;
  /** The newest row's `ord`, read once: each insert takes the next without a query. */
  private lastOrd: number | undefined = undefined;
  /** A fresh `started` row kept in memory (see `hold`), with the time it started. */
  private held: { call: NewCall; now: number } | null = null;
  /** Journal rows waiting for the next commit (see `defer`), oldest first. */
  private deferred: DeferredRow[] = [];
  /** Rows taken by `defer` so far (how many calls shared a commit they did not start). */
  deferrals = 0;

  /**
   * Called when a row stored unfinished (a direct call's, or one `start`ed) is still so as the
   * settle window closes, before the microtask queue drains: the alarm it sets commits with the row.
   */
  onUnfinishedRow: () => void = () => undefined;
  /** Call ids stored unfinished and not finished since (see `onUnfinishedRow`), made at the first. */
  private leftOpen: Set<string> | null = null;

  constructor(private readonly sql: SqlStorage, private readonly settleSoon = (): void => undefined) {}

  /** Takes what the wake read found (`ThreadStore.wake`): {@link LAST_ORD_SQL}, 0 when empty, and {@link QUEUED_SQL} as a boolean. */
  knowAtWake(lastOrd: number, queued: boolean): void {
    this.lastOrd = lastOrd;
    this.maybeQueued = queued;
  }

  /** Forgets what is kept in memory (a transaction that wrote it was rolled back). */
  forget(): void {
    // Their calls wait for a sync and must not run without their rows.
    for (const row of this.deferred) row.failure ??= new Error("the thread's storage was reset before this call's journal row was stored");
    this.deferred = [];
    this.maybeQueued = true;
    this.queueChildren = undefined;
    this.lastOrd = undefined;
    this.held = null;
    this.leftOpen = null;
  }

  /** Every statement of the store runs here: a held row goes in first, so it is in place for whatever follows. */
  private exec<T extends Record<string, SqlStorageValue>>(query: string, ...bindings: SqlStorageValue[]): SqlStorageCursor<T> {
    if (this.held !== null || this.deferred.length !== 0) this.settle();
    return this.sql.exec<T>(query, ...bindings);
  }

  get(callId: string): StoredCall | undefined {
    const row = this.exec<CallRow>("SELECT * FROM calls WHERE call_id = ?", callId).toArray()[0];
    return row ? toRecord(row) : undefined;
  }

  /**
   * The calls of `callIds` in that order (an id with no row left out), each read as it is taken: one
   * statement per {@link IDS_PER_READ} ids, their JSON its one parameter. The cross join keeps the
   * ids the outer loop, so rows come in their order unsorted (a sort would read every row first).
   */
  *getMany(callIds: readonly string[]): Generator<StoredCall> {
    for (let i = 0; i < callIds.length; i += IDS_PER_READ) {
      const ids = JSON.stringify(callIds.slice(i, i + IDS_PER_READ));
      for (const row of this.exec<CallRow>("SELECT c.* FROM json_each(?) AS j CROSS JOIN calls AS c ON c.call_id = j.value", ids)) yield toRecord(row);
    }
  }

  /** The next `ord`; the caller stores it in `lastOrd` once its row is in. Its lookup is the store's own, so it settles nothing. */
  private nextOrd(call: NewCall): number {
    if (call.status === "queued") this.maybeQueued = true;
    if (call.source === "queue" && call.parentCallId !== undefined) this.queueChildren = true;
    this.lastOrd ??= this.sql.exec<{ ord: number }>(LAST_ORD_SQL).toArray()[0]?.ord ?? 0;
    return this.lastOrd + 1;
  }

  /** Inserts a row; `ord` orders the queue and listings. */
  insert(call: NewCall, now = Date.now()): void {
    if (this.held !== null || this.deferred.length !== 0) this.settle();
    this.put(call, now);
  }

  /** `insert` without settling what is kept in memory. */
  private put(call: NewCall, now: number): void {
    const ord = this.nextOrd(call);
    const started = call.status === "started";
    insertRow(this.sql, rowValues(call, ord, now, call.status, started ? 1 : 0, started ? now : null));
    // Only once the row is in: an insert that failed (a duplicate id) takes no number.
    this.lastOrd = ord;
    if (call.source === "direct") this.leftUnfinished(call.callId);
  }

  /**
   * Takes a fresh `started` row (a read: its row needs no flush before `execute`) without writing
   * it yet: when `finish` comes first, the row goes in with its result as one statement instead of
   * an insert and an update. Any other statement of this store inserts it first (`settle`), so
   * readers, later rows and their `ord` find it as if inserted now; the owner settles it before the
   * current synchronous work ends, so it commits with everything written meanwhile.
   */
  hold(call: NewCall, now = Date.now()): void {
    if (this.held !== null) this.settle();
    this.held = { call, now };
  }

  /** Whether a row is held (see `hold`). */
  holding(): boolean {
    return this.held !== null;
  }

  /** Whether a row is left unfinished since the last `watchLeftOpen`. */
  get watching(): boolean {
    return (this.leftOpen?.size ?? 0) > 0;
  }

  /** Inserts the deferred rows, then the held row, if any. */
  settle(): void {
    // The deferred rows arrived before the held one: they take their ord first.
    const held = this.held;
    this.held = null;
    if (this.deferred.length !== 0) this.settleDeferred();
    if (held !== null) this.put(held.call, held.now);
  }

  /**
   * Takes a journal row that must be durable before its call runs, while a sync is under way (see
   * `GroupCommit`): its call waits for the next sync in any case, so the row waits in memory and
   * `settleDeferred` writes it, with every other row taken meanwhile, right before that sync
   * starts, where one commit covers them all instead of one commit each. Any statement of this
   * store writes the deferred rows first, so readers, later rows and their `ord` find them as if
   * inserted now. A row that fails to insert gets its `failure` instead: its call must not run.
   */
  defer(call: NewCall, now = Date.now()): DeferredRow {
    const row: DeferredRow = { call, now };
    this.deferred.push(row);
    this.deferrals++;
    return row;
  }

  /** Inserts the deferred rows, oldest first; never throws (a failed row records its `failure`). */
  settleDeferred(): void {
    const rows = this.deferred;
    if (rows.length === 0) return;
    this.deferred = [];
    for (const row of rows) {
      try {
        this.put(row.call, row.now);
      } catch (e) {
        row.failure = e;
      }
    }
  }

  /** The journal entry before an attempt of `execute`: status started under `effect`, attempts + 1. */
  start(callId: string, input: unknown, effect: StartedAs, now = Date.now()): void {
    const started = this.exec(START_SQL, inputColumn(input, undefined), now, effect, callId);
    // An approval can come long after the watchdog last fired: the run it starts is watched too.
    if (started.rowsWritten > 0) this.leftUnfinished(callId);
  }

  private leftUnfinished(callId: string): void {
    (this.leftOpen ??= new Set()).add(callId);
    this.settleSoon();
  }

  /** Arms the watchdog (`onUnfinishedRow`) if a row is left unfinished (`ThreadStore.settle`). */
  watchLeftOpen(): void {
    if (!this.watching) return;
    this.leftOpen!.clear();
    this.onUnfinishedRow();
  }

  /** One more attempt of a started call (a retry). */
  attempt(callId: string): void {
    this.exec(`UPDATE calls SET attempts = attempts + 1 WHERE call_id = ? AND status = 'started'`, callId);
  }

  /** Holds a validated call for a person's approval, bound to its argument hash. */
  awaitApproval(callId: string, input: unknown, argsHash: string): void {
    this.exec(
      `UPDATE calls SET status = 'awaiting_approval', input = CASE WHEN args_text = ?1 THEN '${SAME_AS_ARGS}' ELSE ?1 END, args_hash = ? WHERE call_id = ? AND ${UNFINISHED}`,
      inputColumn(input, undefined),
      argsHash,
      callId,
    );
  }

  setApprovedBy(callId: string, who: string): void {
    this.exec("UPDATE calls SET approved_by = ? WHERE call_id = ?", who, callId);
  }

  setDecidedBy(callId: string, who: string): void {
    this.exec("UPDATE calls SET decided_by = ? WHERE call_id = ?", who, callId);
  }

  /** Counts one more run of a started call cut short by a restart; returns the new count. */
  restarted(callId: string): number {
    return this.exec<{ restarts: number }>(`UPDATE calls SET restarts = restarts + 1 WHERE call_id = ? RETURNING restarts`, callId).one().restarts;
  }

  /** Parks a call whose outcome is uncertain; a person settles it. */
  park(callId: string, reason: string): void {
    this.exec(`UPDATE calls SET status = 'parked', park_reason = ? WHERE call_id = ? AND ${UNFINISHED}`, reason, callId);
  }

  /**
   * Records the final result once.
   * @returns false when the row already had a final result (nothing written).
   */
  finish(callId: string, status: CallStatus, result: ToolResult, details: FinishDetails, now = Date.now()): boolean {
    const held = this.held;
    if (held?.call.callId === callId) {
      // The deferred rows arrived before it: they go in first and take their ord first.
      this.held = null;
      if (this.deferred.length !== 0) this.settleDeferred();
      this.insertFinished(held, status, result, details, now);
      return true;
    }
    if (this.held !== null || this.deferred.length !== 0) this.settle();
    const finished = finishRow(this.sql, callId, status, details.attempts, resultValues(result, details, now)).rowsWritten > 0;
    if (finished) this.leftOpen?.delete(callId);
    return finished;
  }

  /** The held row (taken off by `finish`), written with its final result in one statement. */
  private insertFinished(held: { call: NewCall; now: number }, status: CallStatus, result: ToolResult, details: FinishDetails, now: number): void {
    const { call } = held;
    const ord = this.nextOrd(call);
    try {
      insertRow(this.sql, [...rowValues(call, ord, held.now, status, details.attempts, held.now), ...resultValues(result, details, now)]);
    } catch (e) {
      // The result could not be stored (finishCall records a failure instead): the started row goes in as it would have.
      this.insert(call, held.now);
      throw e;
    }
    this.lastOrd = ord;
  }

  /** False when no row can be queued (see `queued`), so a drain has nothing to look for. */
  mayHaveQueued(): boolean {
    return this.maybeQueued;
  }

  /** Queued calls in queue order. */
  queued(): StoredCall[] {
    if (!this.maybeQueued) return [];
    const rows = this.exec<CallRow>(`SELECT * FROM calls WHERE status = 'queued' AND ${UNFINISHED} ORDER BY ord`).toArray();
    if (rows.length === 0) this.maybeQueued = false;
    return rows.map(toRecord);
  }

  /** Calls a call queued (`queueTool`), then the calls those queued, each level in queue order. */
  queuedBy(parentCallId: string): StoredCall[] {
    // Left out of the wake read: without a queued child it reads every call with a parent (`source` is not indexed).
    this.queueChildren ??= this.exec("SELECT 1 FROM calls WHERE parent_call_id IS NOT NULL AND source = 'queue' LIMIT 1").toArray().length > 0;
    if (!this.queueChildren) return [];
    const out: StoredCall[] = [];
    for (let parents = [parentCallId]; parents.length > 0; ) {
      const next = parents.flatMap((id) => this.exec<CallRow>("SELECT * FROM calls WHERE parent_call_id = ? AND source = 'queue' ORDER BY ord", id).toArray().map(toRecord));
      out.push(...next);
      parents = next.map((c) => c.callId);
    }
    return out;
  }

  /** Whether a call `invokeTool`d by `parentCallId` waits for a person. */
  invokedWaiting(parentCallId: string): boolean {
    return (
      this.exec(`SELECT 1 FROM calls WHERE parent_call_id = ? AND source = 'invoke' AND status IN ${PERSON_WAIT_SQL} LIMIT 1`, parentCallId).toArray().length > 0
    );
  }

  /** Whether any call of the thread waits for a person (approval or a parked outcome). */
  waitForPerson(): boolean {
    return this.exec(`SELECT 1 FROM calls WHERE status IN ${PERSON_WAIT_SQL} AND ${UNFINISHED} LIMIT 1`).toArray().length > 0;
  }

  /** Whether any call of the turn waits for a person (approval or a parked outcome). */
  turnWaits(turnId: string): boolean {
    // A call waits for a person only before its result: `calls_unfinished` holds the few such rows.
    return this.exec(`SELECT 1 FROM calls WHERE turn_id = ? AND status IN ${PERSON_WAIT_SQL} AND ${UNFINISHED} LIMIT 1`, turnId).toArray().length > 0;
  }

  /** Calls whose journal says started but that have no result: interrupted by a restart. */
  unfinished(): StoredCall[] {
    return this.exec<CallRow>(`SELECT * FROM calls WHERE status = 'started' AND ${UNFINISHED} ORDER BY ord`).toArray().map(toRecord);
  }

  /**
   * Calls in creation order, at most `limit` from `offset`, optionally of one status or any of
   * several, each read as it is taken (a page cut at its bytes reads no more). A status without a
   * result is found through `calls_unfinished`, a final one by walking the calls in order; several
   * are merged in order (UNION ALL of ordered reads: no sort of every match).
   */
  *list(limit = 1000, offset = 0, status?: CallStatus | readonly CallStatus[]): Generator<StoredCall> {
    const statuses = [...new Set(status === undefined ? [] : [status].flat())];
    const reads = statuses.length === 0 ? ["SELECT * FROM calls"] : statuses.map((s) => `SELECT * FROM calls WHERE status = ?${isFinalStatus(s) ? "" : ` AND ${UNFINISHED}`}`);
    for (const row of this.exec<CallRow>(`${reads.join(" UNION ALL ")} ORDER BY ord LIMIT ? OFFSET ?`, ...statuses, limit, offset)) yield toRecord(row);
  }
}
