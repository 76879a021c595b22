/**
 * How weft keeps text and values someone else wrote (a provider's or a tool's error, code's throw, a
 * refusal's details, a schedule's target) in its rows and events.
 * @module
 */
import { byteLength } from "./bytes.js";
import { truncateUtf8 } from "./calls/size.js";

/**
 * Most bytes of an error kept (16 KiB): a turn's (a provider's message may be its whole answer, from
 * an endpoint a user named) and a code run's (what the code throws, stored in one event row).
 */
export const MAX_ERROR_BYTES = 16 * 1024;

/**
 * `text` as a row or an event keeps it: the thread's secrets replaced first (`redact`), then cut
 * to `maxBytes` of UTF-8 (default {@link MAX_ERROR_BYTES}) with a note of its size, so no
 * cut leaves part of a secret.
 */
export function keptText(redact: (text: string) => string, text: string, maxBytes = MAX_ERROR_BYTES): string {
  const seen = redact(text);
  const cut = truncateUtf8(seen, maxBytes);
  return cut === seen ? seen : `${cut} [weft: cut; the error was ${byteLength(seen)} bytes]`;
}

/**
 * The thread's value redaction (`Redactor.value`, the one events get): a copy of a value with every
 * string (keys too) cleaned of the thread's secrets.
 */
export type ValueRedact = <T>(value: T) => T;

/**
 * `value` as a row keeps it for readers to get back later (a call's `errorDetails`, a schedule's
 * target): redacted now, with the secrets the thread's redactor holds as it is stored, as a call's
 * result text is (`capResult`). A reader's redaction knows only the secrets of its own moment: a
 * Worker secret rotated after the row was written would read as written from a row kept as given.
 * Each string is redacted where it stands (`Redactor.value`), never the value's JSON text as a whole
 * (a secret's text could run across a quote and cut the JSON's structure): plain JSON data keeps its
 * shape and its JSON stays valid; a string becomes `[redacted]` where it held a secret. Without
 * `redact` (a world with no secrets) the value is kept as it is.
 */
export function keptValue<T>(redact: ValueRedact | undefined, value: T): T {
  return redact ? redact(value) : value;
}
