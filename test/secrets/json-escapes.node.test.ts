/**
 * A streamed tool call's arguments are JSON a client parses: a secret the model writes with escapes
 * (`\u0061`, `\/`) passed the stream redactor, which looks for the secret as written (review 21a).
 * The escapes are rewritten as `JSON.stringify` writes them before the stream is redacted; a
 * surrogate pair with one half escaped and the other raw too (review 21c).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { JsonEscapes } from "../../src/secrets/json-escapes.js";
import { Redactor } from "../../src/secrets/redact.js";
import { StreamRedactor } from "../../src/secrets/redact-stream.js";

const SECRET = "sk-live-abcdef123456";

/** `text` cut at `cuts` (sorted offsets), through one rewriter. */
function rewritten(text: string, cuts: number[]): string {
  const e = new JsonEscapes();
  let out = "";
  let at = 0;
  for (const c of cuts) {
    out += e.push(text.slice(at, c));
    at = c;
  }
  return out + e.push(text.slice(at)) + e.end();
}

/**
 * `s` as JSON string text with some UTF-16 units written the long way (`\uXXXX`, upper or lower
 * case hex; a surrogate pair may have one half escaped and the other raw) and the rest as JSON writes them.
 */
const escapedLong = (s: string, every: (i: number) => boolean) =>
  [...s]
    .map((ch, i) => {
      const long = (k: number) => {
        const hex = ch.charCodeAt(k).toString(16).padStart(4, "0");
        return `\\u${i % 2 ? hex.toUpperCase() : hex}`;
      };
      if (ch.length === 2) return (every(2 * i) ? long(0) : ch.charAt(0)) + (every(2 * i + 1) ? long(1) : ch.charAt(1));
      return every(2 * i) ? long(0) : JSON.stringify(ch).slice(1, -1);
    })
    .join("");

describe("rewritten escapes", () => {
  it("parse to the same value, and to the text JSON.stringify writes, however the text is cut", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), fc.func(fc.boolean()), fc.array(fc.nat(), { maxLength: 6 }), (s, every, raw) => {
        const text = `{"v":"${escapedLong(s, (i) => every(i))}"}`;
        const cuts = [...new Set(raw.map((n) => n % (text.length + 1)))].sort((a, b) => a - b);
        const out = rewritten(text, cuts);
        expect(JSON.parse(out)).toEqual(JSON.parse(text));
        expect(out).toBe(JSON.stringify({ v: s }));
      }),
      { numRuns: 500 },
    );
  });

  it("leave text that is not valid JSON as readable as it was: an unfinished escape, an escaped backslash", () => {
    expect(rewritten('"a\\u00', [3])).toBe('"a\\u00');
    expect(rewritten('"\\\\u0061\\/x"', [2, 5])).toBe('"\\\\u0061/x"');
    expect(rewritten('"\\uD83D\\uDE00 \\uD83D x \\q"', [7, 9])).toBe('"\u{1F600} \\ud83d x \\q"');
  });

  it("let the stream redactor find a secret the model wrote with escapes, cut anywhere", () => {
    const r = new Redactor([{ name: "S", value: SECRET }]);
    const args = `{"query": "${escapedLong(SECRET, (i) => i % 3 === 0)} and \\/${SECRET}"}`;
    for (let cut = 0; cut <= args.length; cut += 7) {
      const e = new JsonEscapes();
      const s = new StreamRedactor(r);
      const out = [s.push(e.push(args.slice(0, cut))), s.push(e.push(args.slice(cut))), s.push(e.end()), s.end()].join("");
      expect(JSON.parse(out)).toEqual({ query: "[redacted] and /[redacted]" });
    }
  });
});

describe("a surrogate pair half escaped (review 21c)", () => {
  it("is its character, cut anywhere, so a secret holding one is redacted", () => {
    const secret = "sk-live-\u{1F511}-abcdef123456";
    const r = new Redactor([{ name: "K", value: secret }]);
    for (const written of ["sk-live-\\ud83d\udd11-abcdef123456", "sk-live-\ud83d\\uDD11-abcdef123456"]) {
      const args = `{"q":"${written}"}`;
      for (let cut = 0; cut <= args.length; cut++) {
        const e = new JsonEscapes();
        const s = new StreamRedactor(r);
        const out = [s.push(e.push(args.slice(0, cut))), s.push(e.push(args.slice(cut))), s.push(e.end()), s.end()].join("");
        expect(JSON.parse(out)).toEqual({ q: "[redacted]" });
      }
    }
  });
});
