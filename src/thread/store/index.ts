/**
 * All of a thread's tables behind one object, created over the Durable Object's SQLite storage.
 * @module
 */
import type { ThreadMeta, ThreadTables } from "../../ports/store.js";
import { CallStore, LAST_ORD_SQL, QUEUED_SQL } from "./calls.js";
import { EnvStore } from "./env.js";
import { EventLog, LAST_SEQ_SQL } from "./events.js";
import { FileStore } from "./files.js";
import { IdempotencyStore } from "./idempotency.js";
import { KvStore } from "./kv.js";
import { MessageStore } from "./messages.js";
import { META_SQL, MetaStore, metaOf } from "./meta.js";
import { ScriptStore } from "./script.js";
import { ScriptQueue } from "../../models/script-queue.js";
import { SettleWindow } from "../../calls/settle-window.js";
import { SummaryStore } from "./summaries.js";
import { NEWEST_STATUS_SQL, TurnStore } from "./turns.js";

/** What a waking thread reads, in one statement: on a new SQLite connection each statement is compiled first. */
const WAKE_SQL = `SELECT (${META_SQL}) AS meta, (${NEWEST_STATUS_SQL}) AS turn_status, (${LAST_ORD_SQL}) AS last_ord,
  (${LAST_SEQ_SQL}) AS last_seq, EXISTS (${QUEUED_SQL}) AS queued`;
type WakeRow = { meta: string | null; turn_status: string | null; last_ord: number | null; last_seq: number | null; queued: number };

/** The thread's storage, one store per table group. */
export class ThreadStore implements ThreadTables {
  readonly meta: MetaStore;
  readonly messages: MessageStore;
  readonly kv: KvStore;
  readonly env: EnvStore;
  readonly events: EventLog;
  readonly calls: CallStore;
  readonly turns: TurnStore;
  readonly script: ScriptQueue;
  readonly files: FileStore;
  readonly summaries: SummaryStore;
  readonly idempotency: IdempotencyStore;

  constructor(readonly storage: DurableObjectStorage) {
    const sql = storage.sql;
    this.meta = new MetaStore(sql);
    this.messages = new MessageStore(sql, this.meta);
    this.kv = new KvStore(storage);
    this.env = new EnvStore(sql);
    this.events = new EventLog(sql);
    this.calls = new CallStore(sql, () => this.settleSoon());
    this.turns = new TurnStore(sql);
    this.script = new ScriptQueue(new ScriptStore(sql));
    this.files = new FileStore(storage);
    this.summaries = new SummaryStore(sql);
    this.idempotency = new IdempotencyStore(storage);
  }

  /**
   * The thread's record when its object wakes, with what the stores read lazily (newest turn's
   * status, last `ord` and seq, queued calls) and the scalar queries `extra` (their values to
   * `answers`, in order) in the same statement. Undefined, nothing primed, without a thread.
   */
  wake(extra: readonly string[], answers: (values: SqlStorageValue[]) => void): ThreadMeta | undefined {
    const query = `${WAKE_SQL}${extra.map((q, i) => `, (${q}) AS x${i}`).join("")}`;
    const row = this.storage.sql.exec<WakeRow & Record<string, SqlStorageValue>>(query).one();
    const meta = metaOf(row.meta);
    if (!meta) return undefined;
    answers(extra.map((_, i) => row[`x${i}`] ?? null));
    this.turns.knowNewest(row.turn_status);
    this.calls.knowAtWake(row.last_ord ?? 0, row.queued === 1);
    this.events.knowLastSeq(row.last_seq ?? 0);
    return meta;
  }

  /**
   * Whether a call id is taken in this thread: by a call record, or by a call of the history the
   * thread was created with. A model's step takes ids that are not (`uniqueCallIds`).
   */
  callIdTaken(id: string): boolean {
    return this.calls.get(id) !== undefined || this.messages.isHistoryCall(id);
  }

  /** Runs `fn` as one SQLite transaction: all of its writes land, or none. */
  atomically<T>(fn: () => T): T {
    // Held rows are not `fn`'s: a rollback of `fn` must not take them, or their alarm, with it.
    this.settle();
    try {
      return this.storage.transactionSync(fn);
    } catch (e) {
      // Rolled back: what the stores keep in memory may describe rows that are gone.
      this.forget();
      throw e;
    }
  }

  /** Arms the watchdog for call rows left unfinished (first: a held row failing leaves none unwatched), then writes what is held: the events even when a held row fails (they would wait in memory past the commit of the rows they announce). */
  settle(): void {
    try {
      this.calls.watchLeftOpen();
      this.calls.settle();
    } finally {
      this.events.settle();
    }
  }

  /** Settles what is held within the settle window (see `SettleWindow`; the held call row and events of a read). */
  settleSoon(): void {
    this.window.open();
  }

  private readonly window = new SettleWindow(
    () => this.calls.holding() || this.events.holding() || this.calls.watching,
    () => this.settle(),
  );

  /** Drops what the stores keep in memory about their rows; call after rows change behind them (`deleteAll`). */
  forget(): void {
    this.calls.forget();
    this.messages.forget();
    this.summaries.forget();
    this.events.forget();
    this.turns.forget();
    this.env.forget();
  }
}
