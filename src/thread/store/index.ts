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

  /** Runs `fn` as one SQLite transaction: all of its writes land, or none. */
  atomically<T>(fn: () => T): T {
    try {
      return this.storage.transactionSync(fn);
    } catch (e) {
      // Rolled back: what the stores keep in memory may describe rows that are gone.
      this.forget();
      throw e;
    }
  }

  /** Drops what the stores keep in memory about their rows; call after rows change behind them (`deleteAll`). */
  forget(): void {
    this.calls.forget();
    this.events.forget();
    this.turns.forget();
  }
}
