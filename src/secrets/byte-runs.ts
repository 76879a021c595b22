/**
 * Where a redactor's forms are in bytes, in each encoding a text file may use (UTF-8, UTF-16 of
 * either byte order, Latin-1), found without making each form's encodings: the bytes are read as
 * each encoding instead, and the forms looked for there with the redactor's own search (the same
 * automaton, src/secrets/runs.ts). Made as strings, the encodings of a user's 8 MiB of secrets held
 * 38 MB a thread and took 10 s of one isolate's CPU to make.
 * @module
 */
import { merged, runsOf } from "./runs.js";

/** Units of a view made into a string at once (an argument list of that many numbers). */
const CHUNK = 8192;

/** Where a unit of a UTF-8 view stands for bytes that are no UTF-8: a lone surrogate (see {@link utf8View}). */
const NO_UTF8 = 0xd800;

/** Forms as UTF-8 encodes them (a lone surrogate as U+FFFD, as `TextEncoder` writes it), by forms array. */
const utf8FormsOf = new WeakMap<readonly string[], readonly string[]>();
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * The stretches `[start, end)` of `binary` (one character per byte; a character past 0xff is no
 * byte and is in none) covered by the bytes of any of `forms` in UTF-8, UTF-16LE, UTF-16BE or, for
 * a form of Latin-1 characters only, Latin-1; merged as `runsOf` merges them.
 */
export function byteRuns(binary: string, forms: readonly string[]): Array<[number, number]> {
  const wide: number[] = [];
  const ascii = !/[^\x00-\x7f]/.test(binary);
  if (!ascii && WIDE.test(binary)) for (let i = 0; i < binary.length; i++) if (binary.charCodeAt(i) > 0xff) wide.push(i);
  // Latin-1: the bytes are the characters.
  const runs = runsOf(binary, forms, wide.length > 0 ? Int32Array.from(wide) : undefined);
  // Bytes under 0x80 read alike in UTF-8 and Latin-1.
  if (!ascii) {
    let utf8 = utf8FormsOf.get(forms);
    if (!utf8) utf8FormsOf.set(forms, (utf8 = forms.some((f) => f.search(LONE_SURROGATE) >= 0) ? [...new Set(forms.map((f) => f.replace(LONE_SURROGATE, "\uFFFD")))] : forms));
    const view = utf8View(binary);
    for (const [s, e] of viewRuns(view.units, view.length, utf8)) runs.push([view.at[s]!, view.at[e]!]);
  }
  for (let first = 0; first < 2; first++) {
    const view = utf16Views(binary, first);
    for (const units of [view.le, view.be]) for (const [s, e] of viewRuns(units, view.length, forms, view.cuts)) runs.push([first + 2 * s, first + 2 * e]);
  }
  return merged(runs);
}

/** By forms array: what {@link viewRuns} needs to know of them. */
const narrowOf = new WeakMap<readonly string[], Narrowness>();

interface Narrowness {
  /** The forms with a character past 0xff: all of them as the same array, or none. */
  wide: readonly string[];
  /** The least byte no form holds, -1 when each byte is in some form. */
  absent: number;
  /** The shortest form's length. */
  shortest: number;
}

/**
 * Where `forms` are in the first `length` of `units`, none through a position of `cuts` (each a
 * unit past 0xff). Forms of characters up to 0xff (most secrets) are looked for in a one-byte
 * string, a wider unit there a byte no form holds (a cut if each byte is in some form): `indexOf`
 * skips through it as it does through Latin-1, where a two-byte string is read a unit at a time
 * (0.6 ms for 100 000 units, for each long form past the automaton). Only the forms with a wider
 * character are looked for in the two-byte string.
 */
function viewRuns(units: Uint16Array, length: number, forms: readonly string[], cuts?: Int32Array): Array<[number, number]> {
  let kind = narrowOf.get(forms);
  if (!kind) narrowOf.set(forms, (kind = narrowness(forms)));
  const wide = kind.wide.length > 0 ? runsOf(stringOf(units, length), kind.wide, cuts) : [];
  if (kind.wide === forms) return wide;
  const bytes = new Uint8Array(length);
  const wideAt: number[] = [];
  const absent = kind.absent;
  // A view without a stretch of narrow units as long as the shortest form (most views of a binary) holds none.
  let stretch = 0;
  let longest = 0;
  for (let k = 0; k < length; k++) {
    const u = units[k]!;
    if (u <= 0xff) {
      bytes[k] = u;
      if (++stretch > longest) longest = stretch;
      continue;
    }
    stretch = 0;
    if (absent >= 0) bytes[k] = absent;
    else wideAt.push(k);
  }
  if (longest < kind.shortest) return wide;
  // The wide forms are looked for here too, in vain: one search, the forms' own.
  const narrow = runsOf(stringOf(bytes, length), forms, wideAt.length > 0 ? Int32Array.from(wideAt) : undefined);
  return wide.length === 0 ? narrow : merged([...narrow, ...wide]);
}

/** The forms with a character past 0xff, the least byte no other form holds, and the shortest form's length. */
function narrowness(forms: readonly string[]): Narrowness {
  const seen = new Uint8Array(256);
  const wide: string[] = [];
  let shortest = Infinity;
  for (const f of forms) {
    shortest = Math.min(shortest, f.length);
    if (WIDE.test(f)) wide.push(f);
    else for (let i = 0; i < f.length; i++) seen[f.charCodeAt(i)] = 1;
  }
  return { wide: wide.length === forms.length ? forms : wide, absent: seen.indexOf(0), shortest };
}

/** A character that is no byte. */
const WIDE = /[^\x00-\xff]/;

/**
 * `binary` read as UTF-8, each unit with the offset of its bytes (`at`, one more for the end).
 * A byte that begins no well-formed sequence (nor is a byte) reads as {@link NO_UTF8}, a lone high
 * surrogate, which no form that UTF-8 encodes holds: there a high surrogate is followed by a low
 * one, which in the view comes only right after the high one of its own four bytes. A form's
 * bytes begin with no continuation byte, so the reading is in step where they begin, and the
 * view holds the form there: every place it is found is a place its bytes are, and no other.
 */
function utf8View(binary: string): { units: Uint16Array; length: number; at: Int32Array } {
  const n = binary.length;
  const units = new Uint16Array(n);
  const at = new Int32Array(n + 1);
  const byte = (i: number) => (i < n ? binary.charCodeAt(i) : 0x100);
  const tail = (i: number, lo = 0x80, hi = 0xbf) => {
    const b = byte(i);
    return b >= lo && b <= hi ? b & 0x3f : -1;
  };
  let u = 0;
  for (let i = 0; i < n; ) {
    const b = byte(i);
    let point = -1;
    let size = 1;
    if (b < 0x80) point = b;
    else if (b >= 0xc2 && b <= 0xdf) {
      const t1 = tail(i + 1);
      if (t1 >= 0) [point, size] = [((b & 0x1f) << 6) | t1, 2];
    } else if (b >= 0xe0 && b <= 0xef) {
      const t1 = tail(i + 1, b === 0xe0 ? 0xa0 : 0x80, b === 0xed ? 0x9f : 0xbf);
      const t2 = t1 >= 0 ? tail(i + 2) : -1;
      if (t2 >= 0) [point, size] = [((b & 0x0f) << 12) | (t1 << 6) | t2, 3];
    } else if (b >= 0xf0 && b <= 0xf4) {
      const t1 = tail(i + 1, b === 0xf0 ? 0x90 : 0x80, b === 0xf4 ? 0x8f : 0xbf);
      const t2 = t1 >= 0 ? tail(i + 2) : -1;
      const t3 = t2 >= 0 ? tail(i + 3) : -1;
      if (t3 >= 0) [point, size] = [((b & 0x07) << 18) | (t1 << 12) | (t2 << 6) | t3, 4];
    }
    at[u] = i;
    if (point < 0) units[u++] = NO_UTF8;
    else if (point < 0x10000) units[u++] = point;
    else {
      units[u++] = 0xd800 + ((point - 0x10000) >> 10);
      at[u] = i;
      units[u++] = 0xdc00 + ((point - 0x10000) & 0x3ff);
    }
    i += size;
  }
  at[u] = n;
  return { units, length: u, at };
}

/**
 * `binary` from `first` read as UTF-16 (unit k of bytes `first + 2k` and the next), little- and
 * big-endian, and the units that hold a character past 0xff (no byte: nothing found holds them).
 */
function utf16Views(binary: string, first: number): { le: Uint16Array; be: Uint16Array; length: number; cuts: Int32Array | undefined } {
  const length = Math.max(0, binary.length - first) >> 1;
  const le = new Uint16Array(length);
  const be = new Uint16Array(length);
  const cuts: number[] = [];
  for (let k = 0, i = first; k < length; k++, i += 2) {
    const a = binary.charCodeAt(i);
    const b = binary.charCodeAt(i + 1);
    if ((a | b) > 0xff) {
      cuts.push(k);
      le[k] = be[k] = 0xffff;
      continue;
    }
    le[k] = a | (b << 8);
    be[k] = (a << 8) | b;
  }
  return { le, be, length, cuts: cuts.length > 0 ? Int32Array.from(cuts) : undefined };
}

/** The first `length` units as a string, any unit kept as it is (a decoder would replace a lone surrogate). */
function stringOf(units: Uint16Array | Uint8Array, length: number): string {
  let out = "";
  // `apply` takes the typed array as it is: ten times faster than spreading it into arguments.
  for (let i = 0; i < length; i += CHUNK) out += String.fromCharCode.apply(null, units.subarray(i, Math.min(length, i + CHUNK)) as unknown as number[]);
  return out;
}
