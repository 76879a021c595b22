/**
 * The ledger port over a thread's SQLite storage: the calls table (`CallStore`), its held and
 * deferred rows, the settle window (`ThreadStore.settleSoon`) and group commit (`GroupCommit`)
 * behind one object, so the order in which rows, results and syncs happen is kept in one place.
 * @module
 */
import type { CallStatus, ToolResult } from "../../protocol.js";
import type { CallJournal, Decision, StartedAs, FinishDetails, JournalEntry, Ledger, LedgerQueries, LedgerRecord } from "../../ports/ledger.js";
import { GroupCommit } from "../../calls/group-commit.js";
import type { ThreadStore } from "./index.js";

/** The SQLite ledger of one thread; also the `CallJournal` the pipeline takes today. */
export class SqliteLedger implements Ledger, LedgerQueries, CallJournal {
  /**
   * The thread's syncs (`storage.sync()`), shared by every `beginDurably` and `flush`. Right before
   * each sync starts, the rows deferred while the previous one ran are written, so it covers them.
   */
  readonly commits: GroupCommit;

  /**
   * @param store the thread's tables; the ledger writes its `calls` rows.
   * @param sync makes every write so far durable (`storage.sync()`; tests may pass one they control).
   */
  constructor(
    private readonly store: ThreadStore,
    sync: () => Promise<void> = () => store.storage.sync(),
  ) {
    this.commits = new GroupCommit(sync, () => store.calls.settleDeferred());
  }

  /** The calls table (named `rows`: call results are written through `finish` alone). */
  private get rows() {
    return this.store.calls;
  }

  get(callId: string): LedgerRecord | undefined {
    return this.rows.get(callId);
  }

  getMany(callIds: readonly string[]): Iterable<LedgerRecord> {
    return this.rows.getMany(callIds);
  }

  begin(entry: JournalEntry): void {
    this.rows.insert(entry);
  }

  /** `CallJournal`'s name for {@link begin}. */
  insert(entry: JournalEntry): void {
    this.rows.insert(entry);
  }

  beginHeld(entry: JournalEntry): void {
    this.rows.hold(entry);
    this.store.settleSoon();
  }

  /**
   * With no sync under way the row is inserted now and a sync starts at once (a lone call waits
   * for nothing more). While one runs, the call would wait for the next sync anyway: its row is
   * deferred (`CallStore.defer`) and written right before that sync starts, in the event where the
   * running one ended and the calls it covered write their results, so they share one commit.
   */
  beginDurably(entry: JournalEntry): Promise<void> {
    if (!this.commits.syncing) {
      this.rows.insert(entry);
      return this.commits.flush();
    }
    const row = this.rows.defer(entry);
    return this.commits.flush().then(() => {
      if (row.failure !== undefined) throw row.failure;
    });
  }

  start(callId: string, input: unknown, effect: StartedAs): void {
    this.rows.start(callId, input, effect);
  }

  attempt(callId: string): void {
    this.rows.attempt(callId);
  }

  awaitApproval(callId: string, input: unknown, argsHash: string): void {
    this.rows.awaitApproval(callId, input, argsHash);
  }

  decide(callId: string, decision: Decision): void {
    if ("approvedBy" in decision) this.rows.setApprovedBy(callId, decision.approvedBy);
    else this.rows.setDecidedBy(callId, decision.decidedBy);
  }

  /** `CallJournal`'s form of {@link decide} for an approval. */
  setApprovedBy(callId: string, who: string): void {
    this.decide(callId, { approvedBy: who });
  }

  /** `CallJournal`'s form of {@link decide} for a denial or settlement. */
  setDecidedBy(callId: string, who: string): void {
    this.decide(callId, { decidedBy: who });
  }

  park(callId: string, reason: string): void {
    this.rows.park(callId, reason);
  }

  restarted(callId: string): number {
    return this.rows.restarted(callId);
  }

  finish(callId: string, status: CallStatus, result: ToolResult, details: FinishDetails): boolean {
    return this.rows.finish(callId, status, result, details);
  }

  flush(): Promise<void> {
    return this.commits.flush();
  }

  mayHaveQueued(): boolean {
    return this.rows.mayHaveQueued();
  }

  queued(): LedgerRecord[] {
    return this.rows.queued();
  }

  queuedBy(parentCallId: string): LedgerRecord[] {
    return this.rows.queuedBy(parentCallId);
  }

  invokedWaiting(parentCallId: string): boolean {
    return this.rows.invokedWaiting(parentCallId);
  }

  waitForPerson(): boolean {
    return this.rows.waitForPerson();
  }

  turnWaits(turnId: string): boolean {
    return this.rows.turnWaits(turnId);
  }

  unfinished(): LedgerRecord[] {
    return this.rows.unfinished();
  }

  list(limit?: number, offset?: number, status?: CallStatus | readonly CallStatus[]): Iterable<LedgerRecord> {
    return this.rows.list(limit, offset, status);
  }
}
