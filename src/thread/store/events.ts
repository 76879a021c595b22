/**
 * The thread's event log: every frame gets the next `seq` (1, 2, ...) in the same synchronous
 * step that stores it, so replay from any cursor is exact: no gap, no duplicate.
 * @module
 */
import type { EventFrame } from "../../protocol.js";

/** Stored, seq-numbered events. */
export class EventLog {
  constructor(private readonly sql: SqlStorage) {}

  /** Stores one event and returns its frame. */
  append(type: string, data: unknown, now = Date.now()): EventFrame {
    const row = this.sql
      .exec<{ seq: number }>("INSERT INTO events (type, data, at) VALUES (?, ?, ?) RETURNING seq", type, JSON.stringify(data ?? null), now)
      .one();
    return { seq: row.seq, type, data, at: new Date(now).toISOString() } as EventFrame;
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
    return this.sql.exec<{ seq: number }>("SELECT seq FROM events ORDER BY seq DESC LIMIT 1").toArray()[0]?.seq ?? 0;
  }
}
