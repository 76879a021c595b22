/**
 * weft's console lines. They carry text a user controls (a tool name a model made up, a tool's or
 * a provider's error, a call id), and `npm start` (wrangler dev) prints a Worker's console as it
 * is: an ESC or C1 sequence there would drive the reader's terminal (OSC 52 writes the clipboard,
 * CSI 2J clears the screen, OSC 8 disguises a link), a line separator would start a line that
 * looks like weft's, a bidi override would reorder what the operator reads. Every line goes
 * through {@link log}.
 * @module
 */
import { writeRedacted } from "./secrets/redact-logs.js";

/**
 * What a console line never carries raw, the one table of it: C0 controls but tab and line feed,
 * DEL, and the C1 controls (NEL, U+0085, among them), which a terminal acts on (as `wrangler tail`
 * escapes them); U+2028 and U+2029, which terminals and log viewers break a line at; and the
 * bidirectional marks, embeddings, overrides and isolates (U+061C, U+200E-U+200F, U+202A-U+202E,
 * U+2066-U+2069), which reorder what is shown (Trojan Source, CVE-2021-42574).
 */
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;

/** A line feed not followed by a stack frame's `    at ` line: in a user's text it would fake a console line of weft's. */
const LINE_FEED = /\n(?![ \t]+at )/g;

/**
 * `text` with every terminal control written out as `\u001b`, and every line feed as `\n` but
 * those that begin a stack's frame line; tabs stay.
 */
export function printable(text: string): string {
  return text.replace(CONTROLS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).replace(LINE_FEED, "\\n");
}

/** A console argument made printable: a string, and an Error's name, message and stack (printed as they are). */
function printableArg(value: unknown): unknown {
  if (typeof value === "string") return printable(value);
  if (!(value instanceof Error)) return value;
  const copy = new Error(printable(String(value.message)));
  copy.name = printable(String(value.name));
  copy.stack = value.stack === undefined ? undefined : printable(String(value.stack));
  return copy;
}

/** Writes one console line at `level`, redacted (src/secrets/redact-logs.ts), then its text made {@link printable}. */
export function log(level: "log" | "info" | "warn" | "error", ...args: unknown[]): void {
  writeRedacted(level, args, printableArg);
}

/**
 * Writes weft's own text of several lines (the development-mode banner) as one console entry: each
 * line redacted and made {@link printable} as {@link log} does, joined by real line feeds, which
 * only this text's own lines carry.
 */
export function logLines(level: "log" | "info" | "warn" | "error", lines: readonly string[]): void {
  writeRedacted(level, [lines.join("\n")], (text) => String(text).split("\n").map(printable).join("\n"));
}
