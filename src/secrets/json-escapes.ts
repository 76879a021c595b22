/**
 * Streamed JSON text (a tool call's arguments as the model writes them) with every string escape
 * rewritten to the one `JSON.stringify` writes for its character: `\u0061` becomes `a`, `\/` becomes
 * `/`, `\u000a` becomes `\n`, an escaped surrogate pair the character itself. A stream redactor
 * then finds a secret the model wrote with escapes, which a client parsing the streamed arguments
 * would otherwise read. Where pieces are cut depends on the text alone: only an escape not yet
 * complete at a piece's end (at most 11 units: a high surrogate's escape and part of the next) waits.
 * @module
 */

/** Units an escape may take: `\uD83D\uDE00`, a surrogate pair. */
const PAIR_UNITS = 12;
const HEX4 = /^[0-9a-fA-F]{4}$/;

/** The escape `JSON.stringify` writes for a character (or the character itself). */
const canonical = (ch: string) => JSON.stringify(ch).slice(1, -1);
const isHigh = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLow = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/** Rewrites the escapes of one stream of JSON text pieces. */
export class JsonEscapes {
  /** Text whose last escape may not be complete yet. */
  private pending = "";
  /** The last code unit given out (0 before any): a raw high surrogate there pairs with an escaped low one. */
  private last = 0;

  /** Adds a piece; returns the text now complete, its escapes rewritten (maybe ""). */
  push(piece: string): string {
    return this.rewrite(this.pending + piece, false);
  }

  /** The rest (an escape left incomplete passes as it is); call once when the stream ends. */
  end(): string {
    return this.rewrite(this.pending, true);
  }

  private rewrite(text: string, ending: boolean): string {
    let out = "";
    let at = 0;
    for (let slash = text.indexOf("\\"); slash !== -1; slash = text.indexOf("\\", at)) {
      out += text.slice(at, slash);
      // An escape that may still grow waits for the next piece.
      if (!ending && text.length - slash < PAIR_UNITS && this.mayGrow(text.slice(slash))) {
        this.pending = text.slice(slash);
        return this.given(out);
      }
      const before = out.length > 0 ? out.charCodeAt(out.length - 1) : this.last;
      const [escape, length] = this.escapeAt(text, slash, before);
      out += escape;
      at = slash + length;
    }
    this.pending = "";
    return this.given(out + text.slice(at));
  }

  private given(out: string): string {
    if (out.length > 0) this.last = out.charCodeAt(out.length - 1);
    return out;
  }

  /** Whether `tail` (from a backslash to the end) is an escape cut short: more text could change what it stands for. */
  private mayGrow(tail: string): boolean {
    if (tail.length === 1) return true;
    if (tail[1] !== "u") return false;
    const hex = tail.slice(2, 6);
    if (hex.length < 4) return /^[0-9a-fA-F]*$/.test(hex);
    if (!HEX4.test(hex) || !isHigh(parseInt(hex, 16))) return false;
    // A high surrogate: the low one's escape may follow.
    const next = tail.slice(6);
    return "\\u".startsWith(next.slice(0, 2)) && /^[0-9a-fA-F]*$/.test(next.slice(2));
  }

  /**
   * The rewritten escape starting at `slash`, and how many units of `text` it took. A surrogate
   * pair is written as its character whichever of its halves were escaped (`before`: the unit given
   * out just before the escape).
   */
  private escapeAt(text: string, slash: number, before: number): [string, number] {
    const kind = text[slash + 1];
    if (kind === "/") return ["/", 2];
    if (kind !== "u") return [text.slice(slash, slash + 2), kind === undefined ? 1 : 2];
    const hex = text.slice(slash + 2, slash + 6);
    if (!HEX4.test(hex)) return ["\\u", 2];
    const code = parseInt(hex, 16);
    if (isHigh(code)) {
      const low = text.slice(slash + 8, slash + 12);
      if (text.startsWith("\\u", slash + 6) && HEX4.test(low) && isLow(parseInt(low, 16))) return [String.fromCharCode(code, parseInt(low, 16)), 12];
      if (isLow(text.charCodeAt(slash + 6))) return [String.fromCharCode(code), 6];
    }
    if (isLow(code) && isHigh(before)) return [String.fromCharCode(code), 6];
    return [canonical(String.fromCharCode(code)), 6];
  }
}
