/**
 * The ledger port in memory, for plain Node (the call runner's tests): the same rows, the same
 * order, held and deferred rows, the settle window and group commit as the SQLite ledger, with
 * the rows in a map instead of a table.
 * @module
 */
import { type CallStatus, PERSON_WAIT_STATUSES, type ToolResult } from "../protocol.js";
import type { CallJournal, Decision, FinishDetails, JournalEntry, Ledger, LedgerQueries, LedgerRecord, StartedAs } from "../ports/ledger.js";
import { type CallRow, inputColumn, toRecord } from "../thread/store/call-row.js";
import { GroupCommit } from "../calls/group-commit.js";
import { SettleWindow } from "../calls/settle-window.js";

const PERSON_WAIT: readonly string[] = PERSON_WAIT_STATUSES;

/** A journal row waiting for the next sync (see `MemoryLedger.beginDurably`). */
interface Deferred {
  entry: JournalEntry;
  now: number;
  failure?: unknown;
}

/** A sync that takes one macrotask, as a storage sync takes I/O. */
const nextTask = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

/** The memory ledger of one thread. */
export class MemoryLedger implements Ledger, LedgerQueries, CallJournal {
  /** Rows by call id, each as the SQLite calls table holds it (so reads share `toRecord`). */
  private readonly rows = new Map<string, CallRow>();
  private lastOrd = 0;
  private maybeQueued = true;
  private held: { entry: JournalEntry; now: number } | null = null;
  private deferred: Deferred[] = [];
  /** Shared syncs (see `GroupCommit`); rows deferred meanwhile are written right before each. */
  readonly commits: GroupCommit;
  private readonly window = new SettleWindow(
    () => this.held !== null,
    () => this.settle(),
  );

  /** @param sync makes writes "durable": by default one macrotask; a test may pass one it controls. */
  constructor(sync: () => Promise<void> = nextTask) {
    this.commits = new GroupCommit(sync, () => this.settleDeferred());
  }

  /** Writes the deferred rows, then the held one: any statement of the ledger runs this first. */
  private settle(): void {
    const held = this.held;
    this.held = null;
    this.settleDeferred();
    if (held !== null) this.put(held.entry, held.now);
  }

  private settleDeferred(): void {
    const rows = this.deferred;
    this.deferred = [];
    for (const row of rows) {
      try {
        this.put(row.entry, row.now);
      } catch (e) {
        row.failure = e;
      }
    }
  }

  /** The row, with what is held or deferred written first. */
  private row(callId: string): CallRow | undefined {
    if (this.held !== null || this.deferred.length !== 0) this.settle();
    return this.rows.get(callId);
  }

  private put(entry: JournalEntry, now: number, result?: { status: CallStatus; result: ToolResult; details: FinishDetails; at: number }): void {
    if (this.rows.has(entry.callId)) throw new Error(`UNIQUE constraint failed: calls.call_id (${entry.callId})`);
    if (entry.status === "queued") this.maybeQueued = true;
    const started = entry.status === "started";
    const row: CallRow = {
      call_id: entry.callId,
      ord: this.lastOrd + 1,
      tool_name: entry.toolName,
      source: entry.source,
      status: entry.status,
      args_text: entry.argsText,
      input: entry.input === undefined ? null : inputColumn(entry.input, entry.argsText),
      result: null,
      attempts: started ? 1 : 0,
      effect_key: entry.effectKey,
      turn_id: entry.turnId ?? null,
      parent_call_id: entry.parentCallId ?? null,
      created_at: now,
      started_at: started ? now : null,
      finished_at: null,
      duration_ms: null,
      stubbed: 0,
      approved_by: null,
      decided_by: null,
      park_reason: null,
      args_hash: null,
      error_code: null,
      full_result_path: null,
      error_details: null,
      outcome: null,
      restarts: 0,
      effect: entry.effect ?? null,
    };
    if (result) writeResult(row, result.status, result.result, result.details, result.at);
    this.rows.set(entry.callId, row);
    this.lastOrd = row.ord;
  }

  /** The status written now for `callId` (null: none), held and deferred rows not written: what a crash now would leave. For tests. */
  written(callId: string): string | null {
    return this.rows.get(callId)?.status ?? null;
  }

  get(callId: string): LedgerRecord | undefined {
    const row = this.row(callId);
    return row ? toRecord(row) : undefined;
  }

  begin(entry: JournalEntry): void {
    if (this.held !== null || this.deferred.length !== 0) this.settle();
    this.put(entry, Date.now());
  }

  insert(entry: JournalEntry): void {
    this.begin(entry);
  }

  beginHeld(entry: JournalEntry): void {
    if (this.held !== null) this.settle();
    this.held = { entry, now: Date.now() };
    this.window.open();
  }

  beginDurably(entry: JournalEntry): Promise<void> {
    if (!this.commits.syncing) {
      this.begin(entry);
      return this.commits.flush();
    }
    const row: Deferred = { entry, now: Date.now() };
    this.deferred.push(row);
    return this.commits.flush().then(() => {
      if (row.failure !== undefined) throw row.failure;
    });
  }

  /** The unfinished row of `callId`, if any (a final row is never rewritten). */
  private open(callId: string): CallRow | undefined {
    const row = this.row(callId);
    return row && row.finished_at === null ? row : undefined;
  }

  start(callId: string, input: unknown, effect: StartedAs): void {
    const row = this.open(callId);
    if (!row) return;
    row.status = "started";
    row.input = inputColumn(input, row.args_text);
    row.attempts += 1;
    row.started_at = Date.now();
    row.effect = effect;
  }

  attempt(callId: string): void {
    const row = this.row(callId);
    if (row?.status === "started") row.attempts += 1;
  }

  awaitApproval(callId: string, input: unknown, argsHash: string): void {
    const row = this.open(callId);
    if (!row) return;
    row.status = "awaiting_approval";
    row.input = inputColumn(input, row.args_text);
    row.args_hash = argsHash;
  }

  decide(callId: string, decision: Decision): void {
    const row = this.row(callId);
    if (!row) return;
    if ("approvedBy" in decision) row.approved_by = decision.approvedBy;
    else row.decided_by = decision.decidedBy;
  }

  setApprovedBy(callId: string, who: string): void {
    this.decide(callId, { approvedBy: who });
  }

  setDecidedBy(callId: string, who: string): void {
    this.decide(callId, { decidedBy: who });
  }

  park(callId: string, reason: string): void {
    const row = this.open(callId);
    if (!row) return;
    row.status = "parked";
    row.park_reason = reason;
  }

  restarted(callId: string): number {
    const row = this.row(callId);
    if (!row) throw new Error(`no call row ${callId}`);
    return ++row.restarts;
  }

  finish(callId: string, status: CallStatus, result: ToolResult, details: FinishDetails): boolean {
    const held = this.held;
    if (held?.entry.callId === callId) {
      // The held row goes in with its result, in one write; deferred rows arrived first.
      this.held = null;
      this.settleDeferred();
      this.put(held.entry, held.now, { status, result, details, at: Date.now() });
      return true;
    }
    const row = this.open(callId);
    if (!row) return false;
    writeResult(row, status, result, details, Date.now());
    return true;
  }

  flush(): Promise<void> {
    return this.commits.flush();
  }

  /** Every row in order, what is held written first. */
  private ordered(): CallRow[] {
    if (this.held !== null || this.deferred.length !== 0) this.settle();
    return [...this.rows.values()].sort((a, b) => a.ord - b.ord);
  }

  mayHaveQueued(): boolean {
    return this.maybeQueued;
  }

  queued(): LedgerRecord[] {
    if (!this.maybeQueued) return [];
    const rows = this.ordered().filter((r) => r.status === "queued" && r.finished_at === null);
    if (rows.length === 0) this.maybeQueued = false;
    return rows.map(toRecord);
  }

  queuedBy(parentCallId: string): LedgerRecord[] {
    const all = this.ordered();
    const out: LedgerRecord[] = [];
    for (let parents = [parentCallId]; parents.length > 0; ) {
      const next = parents.flatMap((id) => all.filter((r) => r.parent_call_id === id && r.source === "queue").map(toRecord));
      out.push(...next);
      parents = next.map((c) => c.callId);
    }
    return out;
  }

  invokedWaiting(parentCallId: string): boolean {
    return this.ordered().some((r) => r.parent_call_id === parentCallId && r.source === "invoke" && PERSON_WAIT.includes(r.status));
  }

  waitForPerson(): boolean {
    return this.ordered().some((r) => PERSON_WAIT.includes(r.status) && r.finished_at === null);
  }

  turnWaits(turnId: string): boolean {
    return this.ordered().some((r) => r.turn_id === turnId && PERSON_WAIT.includes(r.status));
  }

  unfinished(): LedgerRecord[] {
    return this.ordered()
      .filter((r) => r.status === "started" && r.finished_at === null)
      .map(toRecord);
  }

  getMany(callIds: readonly string[]): LedgerRecord[] {
    return callIds.flatMap((id) => this.get(id) ?? []);
  }

  list(limit = 1000, offset = 0, status?: CallStatus | readonly CallStatus[]): LedgerRecord[] {
    const statuses: readonly string[] | undefined = status === undefined ? undefined : [status].flat();
    return this.ordered()
      .filter((r) => statuses === undefined || statuses.includes(r.status))
      .slice(offset, offset + limit)
      .map(toRecord);
  }
}

/** Records a final result on a row, as the SQLite ledger's one statement does. */
function writeResult(row: CallRow, status: CallStatus, result: ToolResult, details: FinishDetails, now: number): void {
  row.status = status;
  row.attempts = details.attempts;
  row.result = JSON.stringify(result);
  row.duration_ms = details.durationMs;
  row.finished_at = now;
  row.stubbed = details.stubbed ? 1 : 0;
  row.error_code = details.errorCode ?? null;
  row.full_result_path = details.fullResultPath ?? null;
  row.error_details = details.errorDetails ? JSON.stringify(details.errorDetails) : null;
  row.outcome = details.outcome ?? null;
}
