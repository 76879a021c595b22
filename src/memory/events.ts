/**
 * The event sink port in memory, for plain Node: redact, store with the next seq, broadcast;
 * held events wait for the settle window as in the SQLite sink.
 * @module
 */
import type { EventFrame } from "../protocol.js";
import type { EventBroadcast, EventRedactor, EventSink } from "../ports/events.js";
import { eventFrame } from "../event-time.js";
import { SettleWindow } from "../calls/settle-window.js";

/** Events held at most at once; one more stores them first (as the SQLite log). */
const MAX_HELD = 16;

/** A stored event: its data kept as JSON text, so a reader gets a copy, as from a table. */
interface StoredEvent {
  seq: number;
  type: string;
  text: string;
  at: number;
}

/** A held event, redacted already. */
interface HeldEvent {
  type: string;
  data: unknown;
  /** `data`'s JSON, made when it was held. */
  text?: string;
  at: number;
}

/** The memory event sink of one thread. */
export class MemoryEventSink implements EventSink {
  private readonly log: StoredEvent[] = [];
  private held: HeldEvent[] = [];
  private readonly window = new SettleWindow(
    () => this.held.length > 0,
    () => this.settle(),
  );

  /**
   * @param redact applied before anything is stored or sent (null: keep the event back).
   * @param broadcast gets each frame once it is stored.
   */
  constructor(
    private readonly redact: EventRedactor = (_type, data) => data,
    private readonly broadcast: EventBroadcast = () => undefined,
  ) {}

  emit(type: string, data: unknown): EventFrame | null {
    const clean = this.redact(type, data);
    // A null the redactor made of data that was not null keeps the event back; null data is stored as null.
    if (clean === null && data !== null) return null;
    const held = this.takeHeld();
    return this.store([...held, { type, data: clean, at: Date.now() }], held);
  }

  hold(type: string, data: unknown): void {
    const clean = this.redact(type, data);
    if (clean === null && data !== null) return;
    // Its JSON now, as the SQLite log makes it: a later change to `data` is neither stored nor sent.
    this.holdRedacted(type, clean, jsonOf(type, clean));
  }

  holdRedacted(type: string, _data: unknown, text: string): void {
    if (this.held.length >= MAX_HELD) this.settle();
    this.held.push({ type, data: JSON.parse(text) as unknown, text, at: Date.now() });
    this.window.open();
  }

  since(after: number, limit = 10_000, maxChars = Number.POSITIVE_INFINITY): EventFrame[] {
    this.settle();
    const frames: EventFrame[] = [];
    let chars = 0;
    for (const e of this.log) {
      if (e.seq <= after) continue;
      if (frames.length >= limit || chars >= maxChars) break;
      chars += e.text.length;
      frames.push(eventFrame(e.seq, e.type, JSON.parse(e.text), e.at));
    }
    return frames;
  }

  lastSeq(): number {
    this.settle();
    return this.log.at(-1)?.seq ?? 0;
  }

  /** Stores the held events, if any. */
  private settle(): void {
    const held = this.takeHeld();
    if (held.length > 0) this.store(held, held);
  }

  private takeHeld(): HeldEvent[] {
    const held = this.held;
    this.held = [];
    return held;
  }

  /**
   * Stores events with consecutive seqs, all or none (on a failure to serialize one, `held` is
   * held again and no seq is taken), then broadcasts them in order; returns the last frame.
   */
  private store(events: HeldEvent[], held: HeldEvent[]): EventFrame {
    const first = (this.log.at(-1)?.seq ?? 0) + 1;
    let texts: string[];
    try {
      texts = events.map((e) => e.text ?? jsonOf(e.type, e.data));
    } catch (e) {
      // Nothing was stored: the held events wait for the next chance (a new one fails alone).
      this.held = held;
      throw e;
    }
    const frames = events.map((e, i): EventFrame => {
      this.log.push({ seq: first + i, type: e.type, text: texts[i]!, at: e.at });
      return eventFrame(first + i, e.type, e.data, e.at);
    });
    for (const frame of frames) this.broadcast(frame);
    return frames.at(-1)!;
  }
}

/** An event's JSON. @throws TypeError for data with no JSON form. */
function jsonOf(type: string, data: unknown): string {
  const text = JSON.stringify(data ?? null) as string | undefined;
  if (text === undefined) throw new TypeError(`event ${type}: data has no JSON form`);
  return text;
}
