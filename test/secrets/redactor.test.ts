import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { REDACTED, Redactor, workerSecrets } from "../../src/secrets/redact.js";
import { STREAM_HOLD_CHARS, StreamRedactor, holdBack } from "../../src/secrets/redact-stream.js";

describe("Redactor", () => {
  it("replaces every secret with one marker that names none, in strings, keys and nested values", () => {
    const r = new Redactor([
      { name: "SHORT", value: "abc123" },
      { name: "LONG", value: "abc123-and-more" },
    ]);
    expect(r.text("x abc123-and-more y abc123")).toBe("x [redacted] y [redacted]");
    expect(r.value({ "key abc123": ["abc123-and-more", 5, null, { deep: "abc123" }] })).toEqual({
      "key [redacted]": ["[redacted]", 5, null, { deep: "[redacted]" }],
    });
    const error = r.value(new Error("failed abc123"));
    expect(error.message).toBe("failed [redacted]");
  });

  it("gives back a copy made of what it read, the input untouched; a redactor without secrets gives the value back", () => {
    const r = new Redactor([{ name: "S", value: "abc123" }]);
    const clean = { ok: true, value: { list: ["a", { b: 1 }], text: "nothing here" } };
    expect(r.value(clean)).toEqual(clean);
    expect(r.value(clean)).not.toBe(clean);
    const mixed = { keep: { deep: ["x"] }, leak: ["fine", "has abc123"], __proto__key: 1 };
    const out = r.value(mixed);
    expect(out).toEqual({ keep: { deep: ["x"] }, leak: ["fine", "has [redacted]"], __proto__key: 1 });
    expect(mixed.leak[1]).toBe("has abc123");
    const own = JSON.parse('{"__proto__": "abc123"}') as Record<string, unknown>;
    expect(Object.keys(r.value(own))).toEqual(["__proto__"]);
    expect(Object.getOwnPropertyDescriptor(r.value(own), "__proto__")?.value).toBe("[redacted]");
    expect(new Redactor([]).value(clean)).toBe(clean);
  });

  it("redacts JSON text, including a secret that JSON escapes", () => {
    const r = new Redactor([{ name: "Q", value: 'pa"ss\\word' }]);
    expect(r.text(JSON.stringify({ v: 'x pa"ss\\word y' }))).toBe('{"v":"x [redacted] y"}');
  });

  it("redacts a JSON text's decoded strings too, whatever escapes it uses, and keeps it JSON", () => {
    const secret = 'pä"ss\\wörd/9';
    const r = new Redactor([{ name: "Q", value: secret }]);
    // Canonical escapes (weft's own JSON.stringify of a tool result) match the escaped form.
    expect(r.text(JSON.stringify({ v: secret }))).toBe('{"v":"[redacted]"}');
    // Other escapes (ASCII-only JSON, an escaped slash) are found by decoding.
    const ascii = '{"v":"p\\u00e4\\"ss\\\\w\\u00f6rd\\/9","n":1}';
    expect(JSON.parse(ascii).v).toBe(secret);
    expect(JSON.parse(r.text(ascii))).toEqual({ v: "[redacted]", n: 1 });
    // JSON inside a JSON string, escaped twice.
    const twice = JSON.stringify({ inner: ascii });
    expect(JSON.parse(JSON.parse(r.text(twice)).inner)).toEqual({ v: "[redacted]", n: 1 });
    // Text without a secret comes back as it was, formatting kept.
    expect(r.text('{ "a" : "\\u00e9" }')).toBe('{ "a" : "\\u00e9" }');
  });

  it("leaves values shorter than 6 characters alone", () => {
    expect(new Redactor([{ name: "N", value: "4096" }]).text("cap 4096")).toBe("cap 4096");
  });

  it("counts every Worker string binding as a secret except weft's plain config and WEFT_PUBLIC_VARS", () => {
    const names = workerSecrets({ API_TOKEN: "tok-123456", GREETING: "hello there", WEFT_MAX_BODY_BYTES: "1000000", WEFT_JWT_SECRET: "jwt-secret-x", WEFT_PUBLIC_VARS: "GREETING", THREAD: {} }).map((s) => s.name);
    expect(names.sort()).toEqual(["API_TOKEN", "WEFT_JWT_SECRET"]);
    // What thread code can read: weft's own credentials are not thread env.
    expect(workerSecrets({ API_TOKEN: "tok-123456", WEFT_JWT_SECRET: "jwt-secret-x", WEFT_API_KEYS: "{}" }, { credentials: false }).map((s) => s.name)).toEqual(["API_TOKEN"]);
  });
});

describe("StreamRedactor", () => {
  const secretArb = fc.string({ minLength: 6, maxLength: 24, unit: fc.constantFrom(..."abcxyz-_01") });
  /** Secrets that may hold whitespace, quotes and backslashes (escaped forms differ) or overlap. */
  const wildSecretArb = fc.string({ minLength: 6, maxLength: 14, unit: fc.constantFrom(..."abab ab\"\\\n-") });
  const partArb = (alphabet: string) => fc.oneof(fc.string({ maxLength: 12, unit: fc.constantFrom(...alphabet) }), fc.nat(3), fc.tuple(fc.nat(3), fc.nat(30)));

  /** Text from parts: a string, a whole secret (a number), or a prefix of one (a pair). */
  const textOf = (secrets: string[], parts: Array<string | number | [number, number]>) =>
    parts.map((p) => (typeof p === "string" ? p : typeof p === "number" ? secrets[p % secrets.length]! : secrets[p[0] % secrets.length]!.slice(0, p[1]))).join("");

  /** The text split at `cuts`, pushed piece by piece: each push's release, and the end's. */
  function streamed(stream: StreamRedactor, text: string, cuts: number[]): string[] {
    const out: string[] = [];
    let at = 0;
    for (const c of cuts) {
      out.push(stream.push(text.slice(at, at + c)));
      at += c;
    }
    out.push(stream.push(text.slice(at)), stream.end());
    return out;
  }

  it("adds up to redacting the whole text at once, however it is split, with any hold-back", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(secretArb, wildSecretArb), { minLength: 1, maxLength: 4 }),
        fc.array(partArb("abcxyz-_01 \n\"\\"), { maxLength: 14 }),
        fc.array(fc.nat(40), { maxLength: 10 }),
        fc.nat(20),
        (secrets, parts, cuts, extra) => {
          const r = new Redactor(secrets.map((value, i) => ({ name: `S${i}`, value })));
          const text = textOf(secrets, parts);
          const out = streamed(new StreamRedactor(r, Math.max(0, r.longest - 1) + extra), text, cuts).join("");
          for (const s of r.secrets) expect(out).not.toContain(s.value);
          expect(out).toBe(r.plain(text));
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("cuts a text in the same places whether or not a secret matches part of it (no partial-match oracle)", () => {
    // The control secret has the same length and whitespace but characters the text never holds.
    const twin = (s: string) => [...s].map((c, i) => (/\s/.test(c) ? c : "ΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡΣΤΥΦΧΨΩ"[i % 24])).join("");
    fc.assert(
      fc.property(
        fc.oneof(secretArb, wildSecretArb),
        fc.array(fc.oneof(partArb("abcxyz-_01 \n"), fc.tuple(fc.nat(30), fc.nat(30))), { maxLength: 14 }),
        fc.array(fc.nat(40), { maxLength: 10 }),
        fc.nat(20),
        (secret, parts, cuts, extra) => {
          // Probes: prefixes of the secret, and the secret with one character changed; never the whole secret.
          const probe = (p: string | number | [number, number]) =>
            typeof p === "string" ? p : typeof p === "number" ? secret.slice(0, p % secret.length) : `${secret.slice(0, p[0] % secret.length)}~${secret.slice((p[0] % secret.length) + 1)}`;
          const text = parts.map(probe).join("");
          fc.pre(!text.includes(secret) && !text.includes(JSON.stringify(secret).slice(1, -1)));
          const real = new Redactor([{ name: "REAL", value: secret }]);
          const control = new Redactor([{ name: "OTHER", value: twin(secret) }]);
          const hold = Math.max(0, real.longest - 1, control.longest - 1) + extra;
          expect(streamed(new StreamRedactor(real, hold), text, cuts)).toEqual(streamed(new StreamRedactor(control, hold), text, cuts));
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("a whole secret split anywhere looks the same as any other secret of that length split there", () => {
    const a = "sk-live-4b7f2a9e61";
    const b = "zz-qqqq-0000000000";
    const r = new Redactor([
      { name: "A", value: a },
      { name: "B", value: b },
    ]);
    for (let k = 0; k <= a.length; k++) {
      const pieces = (s: string) => {
        const stream = new StreamRedactor(r);
        return [stream.push(`look: ${s.slice(0, k)}`), stream.push(`${s.slice(k)} end`), stream.end()];
      };
      expect(pieces(a)).toEqual(pieces(b));
      expect(pieces(a).join("")).toBe(`look: ${REDACTED} end`);
    }
  });

  it("releases up to the last whitespace, holds a trailing token, and past H holds only H", () => {
    const r = new Redactor([{ name: "K", value: "sk-live-123456" }]);
    const stream = new StreamRedactor(r);
    expect(stream.push("hello sk-li")).toBe("hello ");
    expect(stream.push("ve-123456 bye")).toBe(`${REDACTED} `);
    expect(stream.push("x".repeat(STREAM_HOLD_CHARS + 10))).toBe(`bye${"x".repeat(10)}`);
    expect(stream.end()).toBe("x".repeat(STREAM_HOLD_CHARS));
    // A word that is not a prefix of anything is held exactly as long.
    const plain = new StreamRedactor(r);
    expect(plain.push("hello world")).toBe("hello ");
  });

  it("never cuts a surrogate pair, and sizes H from secret lengths in powers of two", () => {
    const r = new Redactor([{ name: "K", value: "sk-live-123456" }]);
    const stream = new StreamRedactor(r, 13);
    expect(stream.push(`${"a".repeat(20)}\u{1F600}${"b".repeat(12)}`)).toBe("a".repeat(20));
    expect(holdBack(r)).toBe(STREAM_HOLD_CHARS);
    expect(holdBack(new Redactor([{ name: "L", value: "k".repeat(300) }]))).toBe(2 * STREAM_HOLD_CHARS);
    expect(() => new StreamRedactor(r, 5)).toThrow(RangeError);
  });

  it("always holds H when a secret holds whitespace", () => {
    const stream = new StreamRedactor(new Redactor([{ name: "P", value: "line one\nline two" }]), 20);
    expect(stream.push("a b c d e f g h i j k l m n")).toBe("a b c d");
  });
});
