/**
 * The event sink: an emitted event is redacted, stored with the next seq (1, 2, ... with no gap)
 * and then broadcast, and every stored event can be read again after any seq.
 * @module
 */
import type { EventFrame } from "../protocol.js";

/**
 * What the sink does to an event's data before anything is stored or sent: the data with every
 * secret replaced, or null when nothing may go out yet (a stream delta that could be the start
 * of a secret is kept back until the next one). A null made of data that was null itself is
 * the data, not a refusal: such an event is stored and sent.
 */
export type EventRedactor = (type: string, data: unknown) => unknown;

/** Where stored frames go: every connected subscriber (WebSockets). */
export type EventBroadcast = (frame: EventFrame) => void;

/** A thread's event sink and log. */
export interface EventSink {
  /**
   * Redacts, stores and broadcasts one event (events held before it go first, in order).
   * @returns the stored frame (its `data` is the redacted data), or null when the redactor kept it back: nothing stored, no seq taken, nothing sent.
   * @throws what storing threw; no seq is taken then and nothing is sent.
   */
  emit(type: string, data: unknown): EventFrame | null;
  /**
   * Like `emit`, but the event may wait in memory (redacted now) to be stored with the events
   * after it in one write: it is stored by the next `emit`, by any read, and in any case within
   * the settle window (a few microtask turns). It is broadcast once stored, never before.
   */
  hold(type: string, data: unknown): void;
  /**
   * `hold` for data the caller has redacted with the thread's redactor already, with `text` its
   * JSON (as `JSON.stringify` gives it): neither is made again (a tool's `state.emit` measures
   * the redacted text before it is held).
   */
  holdRedacted(type: string, data: unknown, text: string): void;
  /**
   * Stored frames with `seq > after`, oldest first, at most `limit` (default 10,000) and, with
   * `maxChars`, no more once their data's JSON text reaches that many characters (the first frame
   * always comes); held events are stored first.
   */
  since(after: number, limit?: number, maxChars?: number): EventFrame[];
  /** The newest stored seq, 0 when none (held events are stored first). */
  lastSeq(): number;
}
