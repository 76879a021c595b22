/**
 * Redaction of text that arrives in pieces (stream deltas), without a side channel: where a
 * stream is cut into released pieces depends on the text and on constants only, never on whether
 * the text matches part of a secret (docs/env-and-secrets.md "Secrets and redaction").
 *
 * The cut rule. Of the text streamed so far, everything up to its last whitespace character is
 * released and the trailing token (the text after it) is held back, until a later piece or the
 * end. A trailing token longer than the hold-back `H` is released but for its last `H` units.
 * When some secret (raw or JSON-escaped) holds whitespace, the stream always holds back the last
 * `H` units. A cut never splits a surrogate pair. `H` is {@link STREAM_HOLD_CHARS}, doubled until
 * it is at least the longest secret form minus one: it depends on secret lengths (configuration,
 * bucketed so the exact length does not show), never on the text matching anything.
 *
 * Why it is exact. A secret without whitespace that starts before a whitespace cut cannot cross
 * it, so it ends in the released text. After an `H` cut, a secret starting before the cut ends at
 * most `H` units past it, inside the text already streamed. So every occurrence starting in the
 * released text is whole in what the stream has seen: it is replaced by one marker in the piece
 * where it starts, and the next piece starts after it (a stretch of overlapping occurrences that
 * goes on past that point is hidden whole, with no second marker). The pieces add up to
 * `Redactor.plain` of the whole text. Only a whole match changes anything (a marker instead of
 * the text, and where the next piece starts); that much any redaction shows.
 * @module
 */
import { REDACTED, type Redactor } from "./redact.js";
import { runsOf } from "./runs.js";

/** The least hold-back of a stream, in UTF-16 units; see the module's cut rule. */
export const STREAM_HOLD_CHARS = 256;

/** The hold-back `H` for a redactor: {@link STREAM_HOLD_CHARS} doubled until it covers the longest secret form. */
export function holdBack(redactor: Redactor): number {
  let h = STREAM_HOLD_CHARS;
  while (h < redactor.longest - 1) h *= 2;
  return h;
}

const SPACE = /\s/;

/** Redacts one stream of text pieces; see the module's cut rule. */
export class StreamRedactor {
  private readonly hold: number;
  /** The last released raw text (at most `hold` units): an occurrence that began there may go on. */
  private tail = "";
  /** Raw text not released yet. */
  private pending = "";
  /** Units of the whole stream since its last whitespace character. */
  private token = 0;

  /**
   * @param hold the hold-back `H` (default {@link holdBack}); tests pass a small one.
   * @throws RangeError when `hold` is shorter than the longest secret form minus one.
   */
  constructor(
    private readonly redactor: Redactor,
    hold = holdBack(redactor),
  ) {
    if (hold < redactor.longest - 1) throw new RangeError(`stream hold-back ${hold} is shorter than the longest secret form minus one (${redactor.longest - 1})`);
    this.hold = hold;
  }

  /** Adds a piece; returns the redacted text now released (maybe ""). */
  push(piece: string): string {
    this.pending += piece;
    let last = -1;
    for (let i = piece.length - 1; i >= 0; i--) {
      if (SPACE.test(piece[i]!)) {
        last = i;
        break;
      }
    }
    this.token = last === -1 ? this.token + piece.length : piece.length - last - 1;
    const held = this.redactor.spaced ? this.hold : Math.min(this.token, this.hold);
    let cut = this.pending.length - held;
    // Never between the halves of a surrogate pair (only a hold-back cut can land there).
    if (cut > 0 && isHigh(this.pending.charCodeAt(cut - 1))) cut--;
    return cut > 0 ? this.release(cut) : "";
  }

  /** The rest, redacted; call once when the stream ends. */
  end(): string {
    return this.release(this.pending.length);
  }

  /** Releases the pending text up to `cut` (and past it to the end of a stretch of secret text that crosses it). */
  private release(cut: number): string {
    const window = this.tail + this.pending;
    const from = this.tail.length;
    const to = from + cut;
    let out = "";
    let at = from;
    for (const [s, e] of runsOf(window, this.redactor.forms)) {
      if (e <= at) continue;
      if (s >= to) break;
      // A stretch that began in released text goes on: its marker was sent.
      if (s < at) {
        at = e;
        continue;
      }
      out += window.slice(at, s) + REDACTED;
      at = e;
    }
    if (at < to) {
      out += window.slice(at, to);
      at = to;
    }
    this.tail = window.slice(Math.max(0, at - this.hold), at);
    this.pending = window.slice(at);
    return out;
  }
}

function isHigh(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
