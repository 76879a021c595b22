/**
 * The thread's event log: every frame gets the next `seq` (1, 2, ...) in the same synchronous
 * step that stores it, so replay from any cursor is exact: no gap, no duplicate. Events stored by
 * one statement share a row (src/event-rows.ts).
 * @module
 */
import type { EventFrame } from "../../protocol.js";
import { type EventRow, type EventText, PACKED, packedData, pageOfRow, storedFrame } from "../../event-rows.js";

/** An event kept in memory until it is stored (see `EventLog.hold`). */
interface HeldEvent extends EventText {
  data: unknown;
  /** Gets the frame once the event is stored (to send it). */
  stored: (frame: EventFrame) => void;
}

/** Events held at most at once (see `EventLog.hold`); one more stores them first. */
const MAX_HELD = 16;
/**
 * UTF-8 bytes of held events' JSON at most at once, counted as 3 per UTF-16 unit (its most): an event
 * that would pass it stores the held ones first, and one that passes it alone is stored at once.
 */
const MAX_HELD_BYTES = 256 * 1024;

const INSERT_ONE = "INSERT INTO events (seq, type, data, at) VALUES (?, ?, ?, ?)";
const INSERT_TWO = "INSERT INTO events (seq, type, data, at) VALUES (?, ?, ?, ?), (?, ?, ?, ?)";

/** The newest seq, read once per instance (or by the wake read, `ThreadStore.wake`). */
export const LAST_SEQ_SQL = "SELECT seq FROM events ORDER BY seq DESC LIMIT 1";

/** Stored, seq-numbered events. */
export class EventLog {
  /** The newest stored seq, read once: each append takes the next without asking SQLite for it. */
  private last: number | undefined = undefined;
  /** Events taken by `hold`, oldest first, not stored yet. */
  private held: HeldEvent[] = [];
  /** The held events' JSON in UTF-16 units (see {@link MAX_HELD_BYTES}). */
  private heldChars = 0;

  constructor(private readonly sql: SqlStorage) {}

  /** Takes the newest seq as the wake read found it ({@link LAST_SEQ_SQL}; 0 when empty). */
  knowLastSeq(seq: number): void {
    this.last = seq;
  }

  /** Forgets the kept seq (a transaction that stored events was rolled back, or the rows were deleted). */
  forget(): void {
    this.last = undefined;
    this.held = [];
    this.heldChars = 0;
  }

  /**
   * Stores one event and returns its frame; `text` is `data`'s JSON when the caller has it already.
   * Held events are stored first, in the same statement.
   */
  append(type: string, data: unknown, now = Date.now(), text = JSON.stringify(data ?? null)): EventFrame {
    if (this.held.length > 0) return this.appendAfterHeld(type, data, now, text);
    const seq = this.lastSeq() + 1;
    this.sql.exec(INSERT_ONE, seq, type, text, now);
    // Only once the row is in: an append that failed takes no seq.
    this.last = seq;
    return storedFrame(seq, type, data, now, text);
  }

  /**
   * Takes an event without storing it yet: it gets its seq when stored, by the next `append` (in
   * one statement with it), by any read of the log, or by `settle`, which the owner calls within
   * the settle window (a few microtask turns, before the object waits for I/O). One whose JSON alone
   * passes {@link MAX_HELD_BYTES} is stored at once. Nothing is sent before it is stored (`stored`
   * gets its frame).
   */
  hold(type: string, data: unknown, stored: (frame: EventFrame) => void, now: number, text: string): void {
    if (this.held.length >= MAX_HELD || (this.heldChars + text.length) * 3 > MAX_HELD_BYTES) this.settle();
    if (text.length * 3 > MAX_HELD_BYTES) return stored(this.append(type, data, now, text));
    this.held.push({ type, data, text, at: now, stored });
    this.heldChars += text.length;
  }

  /** Whether an event is held (see `hold`). */
  holding(): boolean {
    return this.held.length > 0;
  }

  /** Stores the held events, if any, in one statement. */
  settle(): void {
    const newest = this.held.pop();
    if (!newest) return;
    this.heldChars -= newest.text.length;
    let frame: EventFrame;
    try {
      frame = this.append(newest.type, newest.data, newest.at, newest.text);
    } catch (e) {
      // Nothing was stored: the newest waits with the others for the next chance, as `append` keeps them.
      this.held.push(newest);
      this.heldChars += newest.text.length;
      throw e;
    }
    newest.stored(frame);
  }

  /**
   * The held events and a new one, stored in one statement with consecutive seqs: in one row, or,
   * when together they would pass {@link MAX_HELD_BYTES}, the held ones in one and the new one alone.
   */
  private appendAfterHeld(type: string, data: unknown, now: number, text: string): EventFrame {
    const held = this.held;
    const heldChars = this.heldChars;
    this.held = [];
    this.heldChars = 0;
    let first: number;
    try {
      first = this.lastSeq() + 1;
      const seq = first + held.length;
      if ((heldChars + text.length) * 3 <= MAX_HELD_BYTES) this.sql.exec(INSERT_ONE, seq, PACKED, packedData([...held, { type, text, at: now }]), now);
      else if (held.length === 1) this.sql.exec(INSERT_TWO, first, held[0]!.type, held[0]!.text, held[0]!.at, seq, type, text, now);
      else this.sql.exec(INSERT_TWO, seq - 1, PACKED, packedData(held), held.at(-1)!.at, seq, type, text, now);
    } catch (e) {
      // Nothing was stored: the held events wait for the next chance, the new one fails alone.
      this.held = held;
      this.heldChars = heldChars;
      throw e;
    }
    const seq = first + held.length;
    this.last = seq;
    held.forEach((h, i) => h.stored(storedFrame(first + i, h.type, h.data, h.at, h.text)));
    return storedFrame(seq, type, data, now, text);
  }

  /**
   * Frames with `seq > since`, oldest first, at most `limit` and, with `maxChars`, no more once
   * their data's text reaches that many characters (the first always comes). Rows are read one at
   * a time, so a budget keeps a page of large events from being held whole.
   */
  since(since: number, limit = 10_000, maxChars = Number.POSITIVE_INFINITY): EventFrame[] {
    this.settle();
    const frames: EventFrame[] = [];
    let chars = 0;
    // A row holds one event or more, each newer than `since` but the first row's first few: `limit` rows hold `limit` events at least.
    for (const r of this.sql.exec<EventRow & Record<string, SqlStorageValue>>("SELECT seq, type, data, at FROM events WHERE seq > ? ORDER BY seq LIMIT ?", since, limit)) {
      chars = pageOfRow(r, since, frames, chars, maxChars);
      if (chars >= maxChars || frames.length >= limit) break;
    }
    return frames.length > limit ? frames.slice(0, limit) : frames;
  }

  /** The newest seq, 0 when empty (a held event is stored first). */
  lastSeq(): number {
    if (this.held.length > 0) this.settle();
    return (this.last ??= this.sql.exec<{ seq: number }>(LAST_SEQ_SQL).toArray()[0]?.seq ?? 0);
  }
}
