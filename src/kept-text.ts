/**
 * How weft keeps text someone else wrote (a provider's or a tool's error, code's throw) in its rows and events.
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
