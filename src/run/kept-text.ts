/**
 * How a run keeps text a provider or a tool wrote (an error message) in its rows and events.
 * @module
 */
import { byteLength } from "../bytes.js";
import { truncateUtf8 } from "../calls/size.js";

/** Most bytes of a turn's error kept (16 KiB): a provider's message may be its whole answer, from an endpoint a user named. */
export const MAX_TURN_ERROR_BYTES = 16 * 1024;

/**
 * `text` as a row or an event keeps it: the thread's secrets replaced first (`redact`), then cut
 * to `maxBytes` of UTF-8 (default {@link MAX_TURN_ERROR_BYTES}) with a note of its size, so no
 * cut leaves part of a secret.
 */
export function keptText(redact: (text: string) => string, text: string, maxBytes = MAX_TURN_ERROR_BYTES): string {
  const seen = redact(text);
  const cut = truncateUtf8(seen, maxBytes);
  return cut === seen ? seen : `${cut} [weft: cut; the error was ${byteLength(seen)} bytes]`;
}
