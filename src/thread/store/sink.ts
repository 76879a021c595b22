/**
 * The event sink port over a thread's SQLite event log: redact, store with the next seq, then
 * broadcast; held events share the settle window of held call rows (`ThreadStore.settleSoon`).
 * @module
 */
import type { EventFrame } from "../../protocol.js";
import type { EventBroadcast, EventRedactor, EventSink } from "../../ports/events.js";
import type { ThreadStore } from "./index.js";
import { hasTables } from "./migrations.js";

/** The SQLite event sink of one thread. */
export class SqliteEventSink implements EventSink {
  /**
   * @param store the thread's tables; the sink writes its `events` rows.
   * @param redact the thread's redactor (applied before anything is stored or sent).
   * @param broadcast sends a stored frame to every subscriber.
   */
  constructor(
    private readonly store: ThreadStore,
    private readonly redact: EventRedactor,
    private readonly broadcast: EventBroadcast,
  ) {}

  emit(type: string, data: unknown): EventFrame | null {
    const clean = this.redact(type, data);
    // A null the redactor made of data that was not null keeps the event back; null data is stored as null.
    if (clean === null && data !== null) return null;
    const frame = this.store.events.append(type, clean);
    this.broadcast(frame);
    return frame;
  }

  hold(type: string, data: unknown): void {
    const clean = this.redact(type, data);
    if (clean === null && data !== null) return;
    this.holdRedacted(type, clean, JSON.stringify(clean ?? null) ?? "null");
  }

  holdRedacted(type: string, data: unknown, text: string): void {
    // A removed thread has no tables: stored now, the failure reaches the caller, nothing stays held.
    if (!hasTables(this.store.storage)) return this.broadcast(this.store.events.append(type, data, Date.now(), text));
    this.store.events.hold(type, data, this.broadcast, Date.now(), text);
    this.store.settleSoon();
  }

  since(after: number, limit?: number, maxChars?: number): EventFrame[] {
    return this.store.events.since(after, limit, maxChars);
  }

  lastSeq(): number {
    return this.store.events.lastSeq();
  }
}
