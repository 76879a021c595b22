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

/** One of a stack's frame lines (`    at f (file.ts:1:2)`). */
const FRAME_LINE = /^[ \t]+at /;

/** `text` with every terminal control written out as `\u001b` and every line feed as `\n`; tabs stay. */
export function printable(text: string): string {
  return text.replace(CONTROLS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).replaceAll("\n", "\\n");
}

/**
 * An Error's stack made {@link printable}: its `Name: message` head (as V8 writes it when the stack
 * is first read) on one line, then its frame lines on lines of their own. A stack that does not
 * start with that head (a message changed since) is written on one line: a line of the message it
 * was written with could pass for a frame.
 */
function printableStack(stack: string, name: string, message: string): string {
  const head = !message ? name : !name ? message : `${name}: ${message}`;
  if (stack !== head && !stack.startsWith(`${head}\n`)) return printable(stack);
  const frames = stack.slice(head.length + 1).split("\n").filter((line) => FRAME_LINE.test(line));
  return [head, ...frames].map(printable).join("\n");
}

/** Characters of the text a logged object is written as; past them it ends with `...`. */
const MAX_VALUE_CHARS = 8 * 1024;
/** Nesting written of a logged object; deeper ones are written `[Object]` or `[Array]`, as a console does. */
const MAX_VALUE_DEPTH = 6;

/**
 * A logged object or array as JSON-like text of at most {@link MAX_VALUE_CHARS} (then made
 * {@link printable}): strings and keys quoted, an Error as its name, message and stack, an object
 * with `toJSON` as what that answers, a value met again inside itself as `[Circular]`. Only what
 * is written is read, so a huge value costs no more than the cut.
 */
function valueText(value: object): string {
  const out: string[] = [];
  let left = MAX_VALUE_CHARS;
  const path = new Set<object>();
  const put = (text: string): void => {
    if (left <= 0) return;
    out.push(text.length > left ? `${text.slice(0, left)}...` : text);
    left -= text.length;
  };
  const quoted = (text: string): string => JSON.stringify(text.length > left ? text.slice(0, left) : text);
  const write = (v: unknown, depth: number): void => {
    if (left <= 0) return;
    if (typeof v === "string") return put(quoted(v));
    if (typeof v === "bigint") return put(`${v}n`);
    if (typeof v === "function") return put(`[Function ${quoted(v.name)}]`);
    if (typeof v !== "object" || v === null) return put(String(v));
    if (path.has(v)) return put("[Circular]");
    if (typeof (v as { toJSON?: unknown }).toJSON === "function") {
      path.add(v); // a toJSON that answers its own object is written [Circular]
      write((v as { toJSON(): unknown }).toJSON(), depth + 1);
      return void path.delete(v);
    }
    if (depth >= MAX_VALUE_DEPTH) return put(Array.isArray(v) ? "[Array]" : "[Object]");
    path.add(v);
    const entries = (items: Iterable<[unknown, unknown]>, open: string, close: string, key: (k: unknown) => string): void => {
      put(open);
      let first = true;
      for (const [k, item] of items) {
        if (left <= 0) break;
        put(`${first ? "" : ","}${key(k)}`);
        write(item, depth + 1);
        first = false;
      }
      put(close);
    };
    const keyed = (k: unknown): string => `${quoted(String(k))}:`;
    if (Array.isArray(v)) entries(v.entries(), "[", "]", () => "");
    else if (v instanceof Map) entries(v.entries(), "Map{", "}", (k) => `${typeof k === "string" ? quoted(k) : String(k)}=>`);
    else if (v instanceof Set) entries(indexed(v), "Set[", "]", () => "");
    else if (v instanceof Error) entries(Object.entries({ name: v.name, message: v.message, stack: v.stack }), `${String(v.name)}{`, "}", keyed);
    else entries(ownEntries(v), "{", "}", keyed);
    path.delete(v);
  };
  try {
    write(value, 0);
  } catch {
    put(" [reading it threw]");
  }
  return out.join("");
}

/** `items` as `[index, item]` pairs, read one at a time. */
function* indexed(items: Iterable<unknown>): Generator<[number, unknown]> {
  let i = 0;
  for (const item of items) yield [i++, item];
}

/** `v`'s own enumerable string-keyed entries, read one at a time (a cut stops the reading). */
function* ownEntries(v: object): Generator<[string, unknown]> {
  for (const key in v) if (Object.hasOwn(v, key)) yield [key, (v as Record<string, unknown>)[key]];
}

/**
 * A console argument made printable: a string; an Error's name and message, and its stack
 * (frames on lines of their own); any other object as its text ({@link valueText}), so no string
 * inside it reaches the console raw.
 */
function printableArg(value: unknown): unknown {
  if (typeof value === "string") return printable(value);
  if (value instanceof Error) {
    const name = String(value.name);
    const message = String(value.message);
    const copy = new Error(printable(message));
    copy.name = printable(name);
    copy.stack = value.stack === undefined ? undefined : printableStack(String(value.stack), name, message);
    return copy;
  }
  if ((typeof value === "object" && value !== null) || typeof value === "function") return printable(valueText(value));
  if (typeof value === "symbol") return printable(String(value));
  return value;
}

/** Writes one console line at `level`, redacted (src/secrets/redact-logs.ts), then its text made {@link printable}. */
export function log(level: "log" | "info" | "warn" | "error", ...args: unknown[]): void {
  writeRedacted(level, args, printableArg);
}

/**
 * Writes weft's own text of several lines (the development-mode banner, a failed call's line and
 * its stack frames) as one console entry: each line redacted and made {@link printable} as
 * {@link log} does, joined by real line feeds, which only the lines given here carry.
 */
export function logLines(level: "log" | "info" | "warn" | "error", lines: readonly string[]): void {
  writeRedacted(level, [lines], (redacted) => (redacted as readonly string[]).map(printable).join("\n"));
}
