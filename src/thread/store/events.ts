/**
 * The thread's event log: every frame gets the next `seq` (1, 2, ...) in the same synchronous
 * step that stores it, so replay from any cursor is exact: no gap, no duplicate.
 * @module
 */
import type { EventFrame } from "../../protocol.js";

/** Where a frame made here keeps its data's JSON text (a symbol: neither JSON nor structured clone carry it). */
const DATA_TEXT = Symbol("dataText");

/**
 * A frame's JSON text, as `JSON.stringify(frame)` gives it; for a frame this log stored, built
 * from the text it stored, so the data is serialized once for the row and every socket.
 */
export function frameText(frame: EventFrame): string {
  const data = (frame as EventFrame & { [DATA_TEXT]?: string })[DATA_TEXT];
  return data === undefined ? JSON.stringify(frame) : `{"seq":${frame.seq},"type":${JSON.stringify(frame.type)},"data":${data},"at":"${frame.at}"}`;
}

/** An event kept in memory until it is stored (see `EventLog.hold`). */
interface HeldEvent {
  type: string;
  data: unknown;
  at: number;
  /** Gets the frame once the event is stored (to send it). */
  stored: (frame: EventFrame) => void;
}

/** Stored, seq-numbered events. */
export class EventLog {
  /** The newest stored seq, read once: each append takes the next without asking SQLite for it. */
  private last: number | undefined = undefined;
  private held: HeldEvent | null = null;

  constructor(private readonly sql: SqlStorage) {}

  /** Forgets the kept seq (a transaction that stored events was rolled back, or the rows were deleted). */
  forget(): void {
    this.last = undefined;
    this.held = null;
  }

  /**
   * Stores one event and returns its frame; `text` is `data`'s JSON when the caller has it already.
   * A held event is stored first, in the same statement.
   */
  append(type: string, data: unknown, now = Date.now(), text = JSON.stringify(data ?? null)): EventFrame {
    const held = this.held;
    if (held !== null) return this.appendAfter(held, type, data, now, text);
    const seq = this.lastSeq() + 1;
    this.sql.exec("INSERT INTO events (seq, type, data, at) VALUES (?, ?, ?, ?)", seq, type, text, now);
    // Only once the row is in: an append that failed takes no seq.
    this.last = seq;
    return frameOf(seq, type, data, now, text);
  }

  /**
   * Takes an event without storing it yet: it gets its seq when stored, by the next `append` (both
   * rows in one statement), by any read of the log, or by `settle`, which the owner calls before
   * the current synchronous work ends. Nothing is sent before it is stored (`stored` gets its frame).
   */
  hold(type: string, data: unknown, stored: (frame: EventFrame) => void, now = Date.now()): void {
    if (this.held !== null) this.settle();
    this.held = { type, data, at: now, stored };
  }

  /** Whether an event is held (see `hold`). */
  holding(): boolean {
    return this.held !== null;
  }

  /** Stores the held event, if any. */
  settle(): void {
    const held = this.held;
    if (held === null) return;
    this.held = null;
    held.stored(this.append(held.type, held.data, held.at));
  }

  /** The held event and a new one, stored in one statement with consecutive seqs. */
  private appendAfter(held: HeldEvent, type: string, data: unknown, now: number, text: string): EventFrame {
    this.held = null;
    const first = this.lastSeq() + 1;
    const heldText = JSON.stringify(held.data ?? null);
    this.sql.exec("INSERT INTO events (seq, type, data, at) VALUES (?, ?, ?, ?), (?, ?, ?, ?)", first, held.type, heldText, held.at, first + 1, type, text, now);
    this.last = first + 1;
    held.stored(frameOf(first, held.type, held.data, held.at, heldText));
    return frameOf(first + 1, type, data, now, text);
  }

  /** Frames with `seq > since`, oldest first, at most `limit`. */
  since(since: number, limit = 10_000): EventFrame[] {
    this.settle();
    return this.sql
      .exec<{ seq: number; type: string; data: string; at: number }>(
        "SELECT seq, type, data, at FROM events WHERE seq > ? ORDER BY seq LIMIT ?",
        since,
        limit,
      )
      .toArray()
      .map((r) => ({ seq: r.seq, type: r.type, data: JSON.parse(r.data) as unknown, at: new Date(r.at).toISOString() }) as EventFrame);
  }

  /** The newest seq, 0 when empty (a held event is stored first). */
  lastSeq(): number {
    if (this.held !== null) this.settle();
    return (this.last ??= this.sql.exec<{ seq: number }>("SELECT seq FROM events ORDER BY seq DESC LIMIT 1").toArray()[0]?.seq ?? 0);
  }
}

function frameOf(seq: number, type: string, data: unknown, now: number, text: string): EventFrame {
  const frame = { seq, type, data, at: new Date(now).toISOString() } as EventFrame & { [DATA_TEXT]?: string };
  // `JSON.stringify` leaves out a key whose value is undefined; such a frame is serialized as it is.
  if (data !== undefined) frame[DATA_TEXT] = text;
  return frame;
}
