/**
 * The thread's event log: every frame gets the next `seq` (1, 2, ...) in the same synchronous
 * step that stores it, so replay from any cursor is exact: no gap, no duplicate.
 * @module
 */
import type { EventFrame } from "../../protocol.js";

/** Stored, seq-numbered events. */
export class EventLog {
  /** The newest stored seq, read once: each append takes the next without asking SQLite for it. */
  private last: number | undefined = undefined;

  constructor(private readonly sql: SqlStorage) {}

  /** Forgets the kept seq (a transaction that stored events was rolled back, or the rows were deleted). */
  forget(): void {
    this.last = undefined;
  }

  /** Stores one event and returns its frame. */
  append(type: string, data: unknown, now = Date.now()): EventFrame {
    const seq = this.lastSeq() + 1;
    this.sql.exec("INSERT INTO events (seq, type, data, at) VALUES (?, ?, ?, ?)", seq, type, JSON.stringify(data ?? null), now);
    // Only once the row is in: an append that failed takes no seq.
    this.last = seq;
    return { seq, type, data, at: new Date(now).toISOString() } as EventFrame;
  }

  /** Frames with `seq > since`, oldest first, at most `limit`. */
  since(since: number, limit = 10_000): EventFrame[] {
    return this.sql
      .exec<{ seq: number; type: string; data: string; at: number }>(
        "SELECT seq, type, data, at FROM events WHERE seq > ? ORDER BY seq LIMIT ?",
        since,
        limit,
      )
      .toArray()
      .map((r) => ({ seq: r.seq, type: r.type, data: JSON.parse(r.data) as unknown, at: new Date(r.at).toISOString() }) as EventFrame);
  }

  /** The newest seq, 0 when empty. */
  lastSeq(): number {
    return (this.last ??= this.sql.exec<{ seq: number }>("SELECT seq FROM events ORDER BY seq DESC LIMIT 1").toArray()[0]?.seq ?? 0);
  }
}
