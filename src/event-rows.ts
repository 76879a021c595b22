/**
 * How a thread's events sit in its `events` rows: one event to a row, or several stored by one
 * statement in one row (Durable Object storage bills each row written, and a call's `started`
 * and `finished` events are stored together). A packed row's `seq` is its newest event's and its
 * `type` is {@link PACKED}; its `data` holds `[type, data, at]` for each event, oldest first, so
 * its events are `seq - n + 1` to `seq`. A frame built here keeps its data's JSON text, which the
 * fan-out sends as it was stored.
 * @module
 */
import { eventFrame } from "./event-time.js";
import type { EventFrame } from "./protocol.js";

/** The `type` of a row that holds several events (no event's type is empty: see `emitCustom`'s names). */
export const PACKED = "";

/** An event as a row stores it: its type, its data's JSON text and its time (ms since the epoch). */
export interface EventText {
  type: string;
  text: string;
  at: number;
}

/** One `events` row as read: `seq`, `type` and `at` as stored, `data` the JSON text. */
export interface EventRow {
  seq: number;
  type: string;
  data: string;
  at: number;
}

/** Where a frame made here keeps its data's JSON text (a symbol: neither JSON nor structured clone carry it). */
const DATA_TEXT = Symbol("dataText");

/** The `data` of a packed row of `events` (two or more), built from their JSON texts as stored. */
export function packedData(events: readonly EventText[]): string {
  return `[${events.map((e) => `[${JSON.stringify(e.type)},${e.text},${e.at}]`).join(",")}]`;
}

/** The frames a row holds with `seq > after`, oldest first (one for a single event's row). */
export function framesOfRow(row: EventRow, after = 0): EventFrame[] {
  if (row.type !== PACKED) return [eventFrame(row.seq, row.type, JSON.parse(row.data), row.at)];
  const events = JSON.parse(row.data) as Array<[string, unknown, number]>;
  const first = row.seq - events.length + 1;
  const frames: EventFrame[] = [];
  for (let i = Math.max(0, after + 1 - first); i < events.length; i++) frames.push(eventFrame(first + i, events[i]![0], events[i]![1], events[i]![2]));
  return frames;
}

/**
 * Adds to `page` the frames of `row` with `seq > after` that a page of the log takes when its frames'
 * data hold `chars` characters already: all of them, or, when the row reaches `maxChars`, those up to
 * the event that reaches it (counted one by one, serialized again: one row a page), so a page ends at
 * most one frame past its budget, inside a packed row too.
 * @returns the characters of data in the page after them (a whole row's, skipped events included)
 */
export function pageOfRow(row: EventRow, after: number, page: EventFrame[], chars: number, maxChars: number): number {
  const frames = framesOfRow(row, after);
  if (row.type !== PACKED || chars + row.data.length < maxChars) {
    page.push(...frames);
    return chars + row.data.length;
  }
  for (let i = 0; i < frames.length && chars < maxChars; i++) {
    page.push(frames[i]!);
    chars += JSON.stringify(frames[i]!.data ?? null).length;
  }
  return chars;
}

/** The frame of an event just stored, keeping its data's JSON text for {@link frameText}. */
export function storedFrame(seq: number, type: string, data: unknown, at: number, text: string): EventFrame {
  const frame = eventFrame(seq, type, data, at) as EventFrame & { [DATA_TEXT]?: string };
  frame[DATA_TEXT] = text;
  return frame;
}

/**
 * A frame's JSON text, as `JSON.stringify(frame)` gives it; for a frame made by {@link storedFrame},
 * built from the text it stored, so the data is serialized once for the row and every socket.
 */
export function frameText(frame: EventFrame): string {
  const data = (frame as EventFrame & { [DATA_TEXT]?: string })[DATA_TEXT];
  return data === undefined ? JSON.stringify(frame) : `{"seq":${frame.seq},"type":${JSON.stringify(frame.type)},"data":${data},"at":"${frame.at}"}`;
}
