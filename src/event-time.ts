/**
 * The `at` of an event frame: its time as ISO 8601 text, made cheaply for the many frames of one second;
 * and the frame itself as every event sink sends it.
 * @module
 */
import type { EventFrame } from "./protocol.js";

/** The whole second `isoTime` last formatted (ms since the epoch) and its ISO text up to the `.` before the milliseconds. */
let lastSecond = Number.NaN;
let secondText = "";

/**
 * `new Date(now).toISOString()`, with the text up to the second formatted once per second: a
 * thread's events mostly share it, and `toISOString` costs ~0.6 us in workerd.
 */
export function isoTime(now: number): string {
  const ms = now % 1000;
  if (!Number.isInteger(now) || ms < 0) return new Date(now).toISOString();
  const second = now - ms;
  if (second !== lastSecond) {
    secondText = new Date(second).toISOString().slice(0, -4);
    lastSecond = second;
  }
  return `${secondText}${ms < 10 ? "00" : ms < 100 ? "0" : ""}${ms}Z`;
}

/**
 * The frame of event `seq` as it is stored and replayed: data that is undefined is stored as `null`
 * (`JSON.stringify(data ?? null)`), so it goes live as `null` too, never without its `data` key.
 */
export function eventFrame(seq: number, type: string, data: unknown, at: number): EventFrame {
  return { seq, type, data: data ?? null, at: isoTime(at) } as EventFrame;
}
