/**
 * Redaction keeps a JSON text JSON (src/secrets/json-text.ts): a secret of digits written as a
 * number became `{"n":[redacted]}`, which no reader parses; a secret hidden behind a `\u` escape had
 * the whole document parsed and written again, which rounded every integer past 2^53 and dropped
 * its formatting. Now a number holding secret text becomes the marker as a string, a secret in a
 * string is cut at whole escapes, and only the strings that held a secret are written again.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { REDACTED, Redactor } from "../../src/secrets/redact.js";
import { jsonTokens } from "../../src/secrets/json-text.js";
import { storedFile } from "../../src/secrets/served-file.js";
import { naiveRuns } from "./naive-runs.js";

const QUOTED = JSON.stringify(REDACTED);

describe("a secret written as a JSON number", () => {
  const r = new Redactor([{ name: "PIN", value: "12345678" }]);

  it("becomes the marker as a string, so the text is still JSON", () => {
    expect(r.text('{"n":12345678}')).toBe(`{"n":${QUOTED}}`);
    expect(r.text("[12345678, 1, -12345678]")).toBe(`[${QUOTED}, 1, ${QUOTED}]`);
    expect(r.text("12345678")).toBe(QUOTED);
    // In a string it is replaced where it is, as before.
    expect(r.text('{"s":"pin 12345678"}')).toBe(`{"s":"pin ${REDACTED}"}`);
    // A tool's result text inside a value (what `state.invokeTool` and hooks get).
    const out = r.value({ status: "success", result: '{"account":{"pin":12345678},"ok":true}' });
    expect(JSON.parse(out.result)).toEqual({ account: { pin: REDACTED }, ok: true });
  });

  it("inside a longer number, the whole number is replaced: no digit of it is left beside the marker", () => {
    for (const n of ["9123456780", "1.12345678", "12345678e3", "-0.5e12345678", "112345678"]) {
      expect(r.text(`{"n":${n},"m":42}`), n).toBe(`{"n":${QUOTED},"m":42}`);
    }
    // A number holding only part of the secret is no match, and stays as written.
    expect(r.text('{"n":1234567,"m":2345678.0}')).toBe('{"n":1234567,"m":2345678.0}');
  });

  it("a text that is not JSON is redacted as text", () => {
    expect(r.text("pin: 12345678")).toBe(`pin: ${REDACTED}`);
    expect(r.text('{"n":12345678')).toBe(`{"n":${REDACTED}`);
  });

  it("a secret across tokens replaces its part of each, and leaves the structure", () => {
    const s = new Redactor([{ name: "S", value: '5,"abc' }]);
    expect(s.text('[5,"abcd"]')).toBe(`[${QUOTED},"${REDACTED}d"]`);
  });
});

describe("a secret inside a JSON string", () => {
  it("is cut at whole escapes, so the string stays JSON", () => {
    const r = new Redactor([{ name: "S", value: "nabcdef" }]);
    expect(JSON.parse(r.text('{"k":"\\nabcdef"}'))).toEqual({ k: REDACTED });
    const u = new Redactor([{ name: "U", value: "0041xyzw" }]);
    expect(r.text('{"k":"\\u0041xyzw"}')).toBe('{"k":"\\u0041xyzw"}');
    expect(JSON.parse(u.text('{"k":"\\u0041xyzw"}'))).toEqual({ k: REDACTED });
  });
});

describe("a secret in JSON inside a JSON string", () => {
  it("keeps the inner JSON JSON too", () => {
    const r = new Redactor([{ name: "PIN", value: "12345678" }]);
    const out = r.text(JSON.stringify({ body: JSON.stringify({ pin: 12345678, n: 1 }), id: 12345678901234567890n.toString() }));
    expect(JSON.parse(JSON.parse(out).body)).toEqual({ pin: REDACTED, n: 1 });
    // A secret whose escaped form looks like string text outside (`\n` and digits) is a line feed and a number inside.
    const spaced = new Redactor([{ name: "S", value: "\n12345678" }]);
    const inner = JSON.parse(spaced.text(JSON.stringify({ body: '{"pin":\n12345678}' }))).body;
    expect(JSON.parse(inner)).toEqual({ pin: REDACTED });
  });
});

describe("a secret written with \\u escapes", () => {
  const r = new Redactor([{ name: "K", value: "secret-value" }]);

  it("is gone, and the rest of the document comes back as written: numbers past 2^53, formatting, other escapes", () => {
    const text = '{"id":12345678901234567890,"k":"\\u0073ecret-value","f":1.50,\n "big":1e400, "other":"\\u00e9"}';
    expect(r.text(text)).toBe(`{"id":12345678901234567890,"k":"${REDACTED}","f":1.50,\n "big":1e400, "other":"\\u00e9"}`);
  });

  it("in JSON inside a JSON string, only that string is written again", () => {
    const inner = '{"v":"\\u0073ecret-value","n":12345678901234567890}';
    const text = `{"id":12345678901234567890,"inner":${JSON.stringify(inner)}}`;
    const out = r.text(text);
    expect(out.startsWith('{"id":12345678901234567890,"inner":')).toBe(true);
    expect(JSON.parse(out).inner).toBe(`{"v":"${REDACTED}","n":12345678901234567890}`);
  });
});

/** What a reader finds in a JSON text: its strings (keys too, repeated ones too) decoded, and those of strings that are JSON themselves, down a few levels. */
function decodedStrings(text: string, depth = 0, out: Array<[string, number]> = []): Array<[string, number]> {
  for (const t of tokensOf(text)) {
    if (!t.text.startsWith('"')) continue;
    const v = JSON.parse(t.text) as string;
    out.push([v, depth]);
    if (depth >= 3) continue;
    try {
      JSON.parse(v);
    } catch {
      continue;
    }
    decodedStrings(v, depth + 1, out);
  }
  return out;
}

/** Occurrences of `forms` in `text` that no marker (quoted or not) overlaps. */
function unmarked(text: string, forms: readonly string[]): Array<[number, number]> {
  const marks = naiveRuns(text, [QUOTED, REDACTED]);
  return naiveRuns(text, forms).filter(([s, e]) => !marks.some(([ms, me]) => ms < e && s < me));
}

/** A JSON text's value tokens in order (strings, numbers, literals), read independently of weft's reader. */
function tokensOf(text: string): Array<{ text: string; start: number; end: number }> {
  const out: Array<{ text: string; start: number; end: number }> = [];
  for (const m of text.matchAll(/"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null/g)) out.push({ text: m[0], start: m.index, end: m.index + m[0].length });
  return out;
}

const isNumber = (token: string) => /^-/.test(token) || /^\d/.test(token);

describe("any JSON document, redacted", () => {
  /** Secret characters: JSON's structure, escapes and digits, none of the marker's (a marker never makes a secret). */
  const ALPHABET = [..."bfgxyz0189 \"\\/\né,:{}-.🔑"];
  const textSecret = fc.string({ minLength: 6, maxLength: 10, unit: fc.constantFrom(...ALPHABET) });
  const digitSecret = fc.string({ minLength: 6, maxLength: 10, unit: fc.constantFrom(..."0123456789") });

  /** A number token: secret digits, or random digits (integers past 2^53 too), with a sign, fraction or exponent. */
  const numberArb = (secrets: string[]) =>
    fc
      .tuple(fc.oneof(fc.constantFrom(...secrets.filter((s) => /^\d+$/.test(s)), "7"), fc.bigInt({ min: 0n, max: 10n ** 25n }).map(String)), fc.boolean(), fc.constantFrom("", ".5", ".000", "e3", "E-400"), fc.nat(3))
      .map(([digits, minus, tail, wrap]) => {
        const d = digits.replace(/^0+(?=\d)/, "");
        const body = wrap === 0 ? `1${d}0` : d;
        return `${minus ? "-" : ""}${body}${tail}`;
      });

  /** A string token from pieces (secrets among them), each character escaped as JSON may write it. */
  const stringArb = (secrets: string[]) =>
    fc.array(fc.oneof(fc.constantFrom(...secrets), fc.string({ maxLength: 6, unit: fc.constantFrom(...ALPHABET, "q") })), { maxLength: 4 }).chain((pieces) => {
      const chars = [...pieces.join("")];
      return fc.array(fc.nat(4), { minLength: chars.length, maxLength: chars.length }).map((ways) => {
        const body = chars
          .map((ch, i) => {
            const way = ways[i]!;
            if (way === 1 && ch.length === 1) return `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`;
            if (way === 2 && ch.length === 1) return `\\u${ch.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`;
            if (way === 3 && ch === "/") return "\\/";
            return JSON.stringify(ch).slice(1, -1);
          })
          .join("");
        return `"${body}"`;
      });
    });

  const space = fc.constantFrom("", "", " ", "\n  ");

  const docArb = (secrets: string[]) =>
    fc.letrec<{ value: string }>((tie) => ({
      value: fc.oneof(
        { depthSize: "small", withCrossShrink: true },
        numberArb(secrets),
        stringArb(secrets),
        fc.constantFrom("true", "false", "null"),
        // JSON inside a string: a tool result that carries another's.
        tie("value").map((v) => JSON.stringify(v)),
        fc.array(fc.tuple(space, tie("value"), space), { maxLength: 4 }).map((items) => `[${items.map((i) => i.join("")).join(",")}]`),
        fc.array(fc.tuple(stringArb(secrets), space, tie("value")), { maxLength: 4 }).map((entries) => `{${entries.map(([k, s, v]) => `${k}${s}:${s}${v}`).join(",")}}`),
      ),
    })).value;

  /** Every string token of `text` written as `JSON.stringify` writes it. */
  const canonical = (text: string) => text.replace(/"(?:[^"\\]|\\.)*"/g, (s) => JSON.stringify(JSON.parse(s)));

  it("is JSON, shows no secret a reader could find, and keeps every number no secret touched, byte for byte", () => {
    const caseArb = fc.tuple(fc.array(textSecret, { maxLength: 2 }), fc.array(digitSecret, { minLength: 1, maxLength: 2 })).chain(([texts, digits]) => {
      const chosen = [...texts, ...digits];
      // Secrets cut from the document too: across tokens and structure.
      return fc.tuple(fc.constant(chosen), docArb(chosen), fc.array(fc.tuple(fc.nat(), fc.integer({ min: 6, max: 12 })), { maxLength: 2 }));
    });
    fc.assert(
      fc.property(caseArb, ([chosen, doc, cuts]) => {
        const cut = cuts.map(([at, n]) => doc.slice(at % doc.length, (at % doc.length) + n)).filter((s) => s.length >= 6 && !/[[\]]/.test(s));
        const r = new Redactor([...chosen, ...cut].map((value, i) => ({ name: `S${i}`, value })));
        const values = r.secrets.map((s) => s.value);
        const out = r.text(doc);
        expect(() => JSON.parse(out), out).not.toThrow();
        // Brackets, commas, colons, quotes and spaces stay where a secret made only of them was: JSON needs them.
        expect(unmarked(out, r.forms.filter((f) => /[^[\]{}:,"\s]/.test(f))), out).toEqual([]);
        // A reader that decodes a string (JSON inside it too, a level at a time) finds no form of a
        // secret in it: a secret that JSON escapes is there escaped twice, and looked for so.
        for (const [s] of decodedStrings(out)) expect(unmarked(s, r.forms), s).toEqual([]);
        // Token for token: a number is kept as written unless secret text touched it (in the text as
        // written, or with its strings' escapes made canonical); one that changed became the marker.
        const before = tokensOf(doc);
        const after = tokensOf(out);
        expect(after.length).toBe(before.length);
        const touched = (text: string) => {
          const runs = naiveRuns(text, r.forms);
          return tokensOf(text).map((t) => runs.some(([s, e]) => s < t.end && t.start < e));
        };
        const plainTouch = touched(doc);
        const canonicalTouch = touched(canonical(doc));
        before.forEach((t, i) => {
          if (!isNumber(t.text)) return;
          if (!plainTouch[i] && !canonicalTouch[i]) expect(after[i]!.text, doc).toBe(t.text);
          else if (after[i]!.text !== t.text) expect(after[i]!.text).toBe(QUOTED);
        });
        // A document no secret is in comes back as it was.
        if (naiveRuns(doc, r.forms).length === 0 && decodedStrings(doc).every(([s]) => naiveRuns(s, values).length === 0)) expect(out).toBe(doc);
      }),
      { numRuns: 500 },
    );
  });
});

describe("jsonTokens", () => {
  it("reads a text as JSON exactly when JSON.parse does", () => {
    const near = fc.tuple(fc.json(), fc.nat(), fc.constantFrom("", ",", "]", "}", ":", '"', "\\", "\u0001", " ", "0", "-", ".", "e", "tru", "[", "{")).map(([text, at, insert]) => {
      const i = at % (text.length + 1);
      return [text, text.slice(0, i) + insert + text.slice(i), text.slice(0, i) + insert + text.slice(i + 1)];
    });
    fc.assert(
      fc.property(near, (texts) => {
        for (const text of texts) expect(jsonTokens(text) !== null, JSON.stringify(text)).toBe(parses(text));
      }),
      { numRuns: 2000 },
    );
    for (const text of ["", " ", "[]", "{}", "[1,]", "{,}", '{"a"}', '{"a":}', "[1 2]", "01", "1.", "-", '"\\x"', '"\\u12"', "[]]", "{}x", "\u00011", "1\u0001"]) {
      expect(jsonTokens(text) !== null, JSON.stringify(text)).toBe(parses(text));
    }
    expect(jsonTokens(' {"a" : [1, "b\\"", true]} ')).toEqual([2, 5, 9, 10, 12, 17, 19, 23]);
  });
});

describe("a thread's JSON file", () => {
  it("is stored redacted as JSON still", () => {
    const r = new Redactor([{ name: "PIN", value: "12345678" }]);
    const stored = storedFile({ path: "notes/pin.json", mimeType: "application/json", size: 0, createdAt: 0 }, '{"pin":12345678}', r);
    expect(stored.data).toBe(`{"pin":${QUOTED}}`);
  });
});

/** Whether `JSON.parse` takes `text`. */
function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
