/**
 * Redaction inside a text that is JSON as a whole (a tool's result, an event's JSON text), which
 * keeps it JSON and keeps as written every byte no secret touched: a secret of digits may be written
 * as a number, and a reader that parses the text must still be able to, its other numbers exact (a
 * parse and a new `JSON.stringify` would round integers past 2^53).
 * @module
 */

/**
 * The value tokens of a JSON text, in order, as `[start, end)` pairs flat in one array: each
 * string (with its quotes), number and literal; with `keep`, only those it keeps (see {@link Touched}).
 * Null when the text is not one JSON value as `JSON.parse` reads it. Reads the text once, without
 * building any value.
 */
export function jsonTokens(text: string, keep?: (start: number, end: number) => boolean): number[] | null {
  const tokens: number[] = [];
  // Open brackets' codes; `{` + 2 is `}` and `[` + 2 is `]`.
  const open: number[] = [];
  let want = VALUE;
  // Whether the bracket just opened may close now (`{}`, `[]`).
  let empty = false;
  for (let at = 0; ; ) {
    while (at < text.length && isSpace(text.charCodeAt(at))) at++;
    if (at === text.length) return want === NEXT && open.length === 0 ? tokens : null;
    const c = text.charCodeAt(at);
    const top = open.length > 0 ? open[open.length - 1]! : -1;
    const closes = top !== -1 && c === top + 2;
    if (want === NEXT || (empty && closes)) {
      empty = false;
      if (closes) {
        open.pop();
        want = NEXT;
      } else if (c === COMMA && top !== -1) want = top === BRACE ? KEY : VALUE;
      else return null;
      at++;
      continue;
    }
    if (want === COLON) {
      if (c !== 0x3a) return null;
      want = VALUE;
      at++;
      continue;
    }
    empty = false;
    let end: number;
    if (c === QUOTE) end = stringEnd(text, at);
    else if (want === KEY) return null;
    else if (c === BRACE || c === BRACKET) {
      open.push(c);
      want = c === BRACE ? KEY : VALUE;
      empty = true;
      at++;
      continue;
    } else end = scalarEnd(text, at);
    if (end < 0) return null;
    if (!keep || keep(at, end)) tokens.push(at, end);
    want = want === KEY ? COLON : NEXT;
    at = end;
  }
}

/**
 * `text` (JSON, with `tokens` from {@link jsonTokens}) with the stretches `runs` (in order, apart, as
 * `runsOf` gives them) of secret text replaced, so it stays JSON: a number or literal a stretch
 * touches becomes `marker` as a string (the whole number: digits beside the marker would tell part
 * of a secret's digits); in a string, the part of the stretch inside it becomes `marker`, widened
 * to whole escapes (`\n`, `\u0041`) so none is cut; brackets, commas, colons and spaces stay.
 * Null when that would make it more than twice as long (and a quoted marker or two): a stretch
 * across many small tokens (`0,0,0`) becomes a marker in each, 13 characters for every 2; the
 * caller then replaces each stretch whole, as in any text (see {@link mostKept}).
 */
export function replaceInJson(text: string, tokens: readonly number[], runs: ReadonlyArray<[number, number]>, marker: string): string | null {
  if (runs.length === 0) return text;
  const quoted = JSON.stringify(marker);
  const most = mostKept(text.length, quoted.length);
  let out = "";
  let at = 0;
  let t = 0;
  for (const [s, e] of runs) {
    while (t < tokens.length && tokens[t + 1]! <= s) t += 2;
    for (let u = t; u < tokens.length && tokens[u]! < e; u += 2) {
      const a = tokens[u]!;
      const b = tokens[u + 1]!;
      if (text.charCodeAt(a) !== QUOTE) {
        // A second stretch in a number replaced already adds nothing.
        if (a >= at) {
          out += text.slice(at, a) + quoted;
          at = b;
          if (out.length > most) return null;
        }
        continue;
      }
      let from = Math.max(s, a + 1);
      let to = Math.min(e, b - 1);
      if (from >= to) continue;
      from = unitStart(text, from, a + 1);
      const last = unitStart(text, to, a + 1);
      if (last < to) to = last + escapeLength(text, last);
      // Widened, it may reach into the stretch before (cut in one escape): one marker for both.
      if (from < at) at = Math.max(at, to);
      else {
        out += text.slice(at, from) + marker;
        at = to;
        if (out.length > most) return null;
      }
    }
  }
  return out + text.slice(at);
}

/**
 * How long a text of `chars` may grow kept JSON, `quoted` the quoted marker's length: twice, and
 * two markers (`[5,"abc` across two tokens of a short text). A user sets both their secrets and the
 * texts redacted: unbounded, a 16 MB tool result of small numbers became 100 MB, past an isolate's
 * memory (replaced as text, a stretch of 6 characters or more becomes 10).
 */
const mostKept = (chars: number, quoted: number) => 2 * chars + 2 * quoted;

/**
 * Whether the stretch `[s, e)` of `text`, a JSON text without `\u` escapes, is sure to lie inside
 * one string without cutting an escape, whatever comes before it (and so in any JSON inside that
 * string): it holds no quote, holds a character that JSON writes only in strings (not a digit, a
 * literal's letter, space, punctuation or a backslash), and has no backslash just before it nor
 * at its end. Such a stretch is replaced in place, the text unread: what a secret in a string (the
 * common case) costs.
 */
export function surelyInString(text: string, [s, e]: readonly [number, number]): boolean {
  if (text.charCodeAt(s - 1) === BACKSLASH || text.charCodeAt(e - 1) === BACKSLASH) return false;
  const part = text.slice(s, e);
  return !part.includes('"') && STRING_ONLY.test(part);
}

/**
 * A character JSON writes only in strings, and that stays one when the string is JSON decoded (not a
 * backslash: `\n` is a line feed in JSON inside a string, outside its strings).
 */
const STRING_ONLY = /[^-0-9+.eEtrufalsn \t\n\r{}[\]:,\\]/;

/**
 * Which tokens of `text` {@link jsonTokens} keeps ({@link Touched.keep}): those a
 * stretch of `runs` (in order) touches, and the strings holding an escape `escapes` finds (none
 * without it). Once so many tokens would each hold a `marker` that {@link replaceInJson} could not
 * keep the text JSON ({@link Touched.over}: a stretch across a million small numbers, whose tokens took 10
 * bytes or more a character), only those strings: what decoding needs.
 */
export class Touched {
  /** Whether the tokens kept are too many for the text to stay JSON: the text is then redacted as text. */
  over = false;
  private r = 0;
  private hiding = -1;
  private marks = 0;
  private readonly most: number;

  constructor(
    private readonly text: string,
    private readonly runs: ReadonlyArray<[number, number]>,
    private readonly escapes: RegExp | null,
    marker: string,
  ) {
    this.most = mostKept(text.length, JSON.stringify(marker).length) / marker.length;
  }

  /** Whether {@link jsonTokens} keeps the token `[a, b)` (asked about each token in order). */
  readonly keep = (a: number, b: number): boolean => {
    const { text, runs } = this;
    while (this.r < runs.length && runs[this.r]![1] <= a) this.r++;
    const quoted = text.charCodeAt(a) === QUOTE;
    const run = runs[this.r];
    if (!this.over && run && run[0] < b) {
      // A stretch in its content (not its quotes alone) puts a marker in it.
      if (run[0] < b - (quoted ? 1 : 0) && run[1] > a + (quoted ? 1 : 0) && ++this.marks > this.most) this.over = true;
      else return true;
    }
    if (!this.escapes || !quoted) return false;
    if (this.hiding < a) this.hiding = hides(this.escapes, text, a);
    return this.hiding < b;
  };
}

/** Where an escape `escapes` finds ({@link hidingEscapes}) may start in `text` at `from` or after (Infinity for none). */
export function hides(escapes: RegExp, text: string, from: number): number {
  escapes.lastIndex = from;
  return escapes.exec(text)?.index ?? Infinity;
}
/**
 * Escapes a secret may hide behind in a JSON string: `\u` and `\/` (the escaped forms match every
 * other escape as `JSON.stringify` writes it). With a secret that JSON escapes (a quote, a
 * backslash, a line feed: a PEM key), `\\` too: JSON inside a string holds that secret escaped
 * twice (`\\n`), which no form matches as written, and a reader that decodes the string once
 * finds its escaped form.
 */
const HIDING = /\\[u/]/g;
const HIDING_ESCAPED = /\\[u/\\]/g;

/** The escapes ({@link HIDING}) to decode JSON strings at, for the JSON-escaped forms of a redactor's secrets. */
export function hidingEscapes(escapedForms: readonly string[]): RegExp {
  return escapedForms.some((f) => f.includes("\\")) ? HIDING_ESCAPED : HIDING;
}

const VALUE = 0;
const KEY = 1;
const COLON = 2;
const NEXT = 3;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const BRACE = 0x7b;
const BRACKET = 0x5b;
const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** A quote, a backslash or a control character: what ends a string's plain run. */
const STRING_STOP = /["\\\u0000-\u001f]/g;
const ESCAPE = /\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})/y;
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

/** Where the string starting at `at` ends (past its closing quote), or -1 when it is no JSON string. */
function stringEnd(text: string, at: number): number {
  for (let i = at + 1; ; ) {
    STRING_STOP.lastIndex = i;
    if (!STRING_STOP.exec(text)) return -1;
    i = STRING_STOP.lastIndex - 1;
    const c = text.charCodeAt(i);
    if (c === QUOTE) return i + 1;
    if (c !== BACKSLASH) return -1;
    ESCAPE.lastIndex = i;
    if (!ESCAPE.test(text)) return -1;
    i = ESCAPE.lastIndex;
  }
}

/** Where the number or literal starting at `at` ends, or -1. */
function scalarEnd(text: string, at: number): number {
  for (const word of ["true", "false", "null"]) if (text.startsWith(word, at)) return at + word.length;
  NUMBER.lastIndex = at;
  return NUMBER.test(text) ? NUMBER.lastIndex : -1;
}

/** Units the escape starting at `at` takes. */
const escapeLength = (text: string, at: number) => (text.charCodeAt(at + 1) === 0x75 ? 6 : 2);

/**
 * Where the character or escape holding position `p` of a string's content (which starts at
 * `from`) starts: `p` itself unless `p` is inside an escape. An escape is 6 units at most, so only
 * the 5 before `p` are looked at; a backslash starts an escape when an odd number of them end there.
 */
function unitStart(text: string, p: number, from: number): number {
  for (let q = p - 1; q >= from && q >= p - 5; q--) {
    if (text.charCodeAt(q) !== BACKSLASH) continue;
    let run = 1;
    while (q - run >= from && text.charCodeAt(q - run) === BACKSLASH) run++;
    if (run % 2 === 1) return q + escapeLength(text, q) > p ? q : p;
  }
  return p;
}
