import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Redactor, workerSecrets } from "../src/thread/redact.js";

describe("Redactor", () => {
  it("replaces every secret, longest first, in strings, keys and nested values", () => {
    const r = new Redactor([
      { name: "SHORT", value: "abc123" },
      { name: "LONG", value: "abc123-and-more" },
    ]);
    expect(r.text("x abc123-and-more y abc123")).toBe("x [redacted:LONG] y [redacted:SHORT]");
    expect(r.value({ "key abc123": ["abc123-and-more", 5, null, { deep: "abc123" }] })).toEqual({
      "key [redacted:SHORT]": ["[redacted:LONG]", 5, null, { deep: "[redacted:SHORT]" }],
    });
    const error = r.value(new Error("failed abc123"));
    expect(error.message).toBe("failed [redacted:SHORT]");
  });

  it("copies only what holds a secret: a clean value comes back as the same object", () => {
    const r = new Redactor([{ name: "S", value: "abc123" }]);
    const clean = { ok: true, value: { list: ["a", { b: 1 }], text: "nothing here" } };
    expect(r.value(clean)).toBe(clean);
    const mixed = { keep: { deep: ["x"] }, leak: ["fine", "has abc123"], __proto__key: 1 };
    const out = r.value(mixed);
    expect(out).toEqual({ keep: { deep: ["x"] }, leak: ["fine", "has [redacted:S]"], __proto__key: 1 });
    expect(out).not.toBe(mixed);
    expect(out.keep).toBe(mixed.keep);
    expect(mixed.leak[1]).toBe("has abc123");
    const own = JSON.parse('{"__proto__": "abc123"}') as Record<string, unknown>;
    expect(Object.keys(r.value(own))).toEqual(["__proto__"]);
    expect(Object.getOwnPropertyDescriptor(r.value(own), "__proto__")?.value).toBe("[redacted:S]");
  });

  it("redacts JSON text, including a secret that JSON escapes", () => {
    const r = new Redactor([{ name: "Q", value: 'pa"ss\\word' }]);
    expect(r.json(JSON.stringify({ v: 'x pa"ss\\word y' }))).toBe('{"v":"x [redacted:Q] y"}');
  });

  it("leaves values shorter than 6 characters alone", () => {
    expect(new Redactor([{ name: "N", value: "4096" }]).text("cap 4096")).toBe("cap 4096");
  });

  it("counts every Worker string binding as a secret except weft's plain config and WEFT_PUBLIC_VARS", () => {
    const names = workerSecrets({ API_TOKEN: "tok-123456", GREETING: "hello there", WEFT_MAX_BODY_BYTES: "1000000", WEFT_JWT_SECRET: "jwt-secret-x", WEFT_PUBLIC_VARS: "GREETING", THREAD: {} }).map((s) => s.name);
    expect(names.sort()).toEqual(["API_TOKEN", "WEFT_JWT_SECRET"]);
  });
});

describe("StreamRedactor", () => {
  const secretArb = fc.string({ minLength: 6, maxLength: 24, unit: fc.constantFrom(..."abcxyz-_01") });

  it("never lets a secret through, however the text is split into pieces", () => {
    fc.assert(
      fc.property(
        fc.array(secretArb, { minLength: 1, maxLength: 4 }),
        fc.array(fc.oneof(fc.string({ maxLength: 12, unit: fc.constantFrom(..."abcxyz-_01 ") }), fc.nat(3)), { maxLength: 12 }),
        fc.array(fc.nat(40), { maxLength: 10 }),
        (secrets, parts, cuts) => {
          const r = new Redactor(secrets.map((value, i) => ({ name: `S${i}`, value })));
          const text = parts.map((p) => (typeof p === "number" ? secrets[p % secrets.length]! : p)).join("");
          const pieces: string[] = [];
          let at = 0;
          for (const c of cuts) {
            pieces.push(text.slice(at, at + c));
            at += c;
          }
          pieces.push(text.slice(at));
          const stream = r.stream();
          const out = pieces.map((p) => stream.push(p)).join("") + stream.end();
          for (const s of r.secrets) expect(out).not.toContain(s.value);
          // The stream says the same as redacting the whole text at once.
          expect(out).toBe(r.text(text));
        },
      ),
      { numRuns: 500 },
    );
  });

  it("passes text without secrets through unchanged, holding back only a possible prefix", () => {
    const stream = new Redactor([{ name: "K", value: "sk-live-123456" }]).stream();
    expect(stream.push("hello sk-li")).toBe("hello ");
    expect(stream.push("ve-123456 bye")).toBe("[redacted:K] bye");
    expect(stream.end()).toBe("");
  });
});
