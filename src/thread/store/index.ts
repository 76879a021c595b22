/**
 * All of a thread's tables behind one object, created over the Durable Object's SQLite storage.
 * @module
 */
import { CallStore } from "./calls.js";
import { EnvStore } from "./env.js";
import { EventLog } from "./events.js";
import { FileStore } from "./files.js";
import { IdempotencyStore } from "./idempotency.js";
import { KvStore } from "./kv.js";
import { MessageStore } from "./messages.js";
import { MetaStore } from "./meta.js";
import { ScriptStore } from "./script.js";
import { SummaryStore } from "./summaries.js";
import { TurnStore } from "./turns.js";

/**
 * Microtask turns a held read's row and events wait for its result (see `ThreadStore.settleSoon`):
 * enough for an `execute` that answers without I/O to settle through the attempt and be recorded.
 */
const SETTLE_TURNS = 12;
const RESOLVED = Promise.resolve();

/** The thread's storage, one store per table group. */
export class ThreadStore {
  readonly meta: MetaStore;
  readonly messages: MessageStore;
  readonly kv: KvStore;
  readonly env: EnvStore;
  readonly events: EventLog;
  readonly calls: CallStore;
  readonly turns: TurnStore;
  readonly script: ScriptStore;
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
    this.calls = new CallStore(sql);
    this.turns = new TurnStore(sql);
    this.script = new ScriptStore(sql);
    this.files = new FileStore(storage);
    this.summaries = new SummaryStore(sql);
    this.idempotency = new IdempotencyStore(storage);
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
    // Held rows are not `fn`'s: a rollback of `fn` must not take them with it.
    this.settle();
    try {
      return this.storage.transactionSync(fn);
    } catch (e) {
      // Rolled back: what the stores keep in memory may describe rows that are gone.
      this.forget();
      throw e;
    }
  }

  /** Writes the call row and the event that `CallStore.hold` and `EventLog.hold` keep, if any. */
  settle(): void {
    this.calls.settle();
    this.events.settle();
  }

  /**
   * Settles what is held once the current synchronous work has had {@link SETTLE_TURNS} more
   * microtask turns without finishing the call: a read whose `execute` settles within them records
   * its row and events in two statements; one that waits for I/O has them stored first. Either way
   * they are written before the microtask queue drains, so they commit in the same implicit
   * transaction as an insert made now (workerd commits only once JavaScript yields to I/O).
   */
  settleSoon(): void {
    const idle = this.turnsLeft === 0;
    this.turnsLeft = SETTLE_TURNS;
    // A reaction on a settled promise: a microtask turn without leaving V8 (cheaper than queueMicrotask).
    if (idle) void RESOLVED.then(this.tick);
  }

  private turnsLeft = 0;
  private readonly tick = (): void => {
    if (!this.calls.holding() && !this.events.holding()) {
      this.turnsLeft = 0;
      return;
    }
    if (--this.turnsLeft > 0) return void RESOLVED.then(this.tick);
    this.settle();
  };

  /** Drops what the stores keep in memory about their rows; call after rows change behind them (`deleteAll`). */
  forget(): void {
    this.calls.forget();
    this.events.forget();
    this.turns.forget();
    this.env.forget();
  }
}
