/**
 * Attacks on redaction keeping JSON text JSON (src/secrets/json-text.ts, `Redactor.text`): a secret
 * that JSON escapes (a PEM key's line feeds, a quote, a backslash) inside JSON inside a JSON string
 * is written escaped twice, which no form matches as written; a reader that decodes the text once
 * finds the secret's JSON-escaped form in the decoded string.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { REDACTED, Redactor } from "../../src/secrets/redact.js";

const PEM = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n";

/** Every string a reader finds decoding `text` (and JSON in its strings), `levels` deep. */
function readerStrings(text: string, levels = 3): string[] {
  const out: string[] = [];
  const visit = (v: unknown, left: number): void => {
    if (typeof v === "string") {
      out.push(v);
      if (left > 0) {
        try {
          visit(JSON.parse(v), left - 1);
        } catch {
          // not JSON
        }
      }
    } else if (Array.isArray(v)) v.forEach((x) => visit(x, left));
    else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) (visit(k, left), visit(x, left));
  };
  visit(JSON.parse(text), levels);
  return out;
}

/** Whether `s` shows a form of `secret` (raw or JSON-escaped) outside a marker. */
const shows = (s: string, secret: string) => s.includes(secret) || s.includes(JSON.stringify(secret).slice(1, -1));

describe("a secret JSON escapes, in JSON inside a JSON string (an HTTP tool's result: its body as text)", () => {
  const r = new Redactor([{ name: "KEY", value: PEM }]);
  const body = JSON.stringify({ private_key: PEM, ok: true });

  it("is gone from the strings a reader decodes, whatever else the document holds", () => {
    for (const text of [
      JSON.stringify({ status: 200, body }),
      // A `\/` elsewhere (PHP's json_encode writes every slash so): before the JSON-keeping change, this one was redacted.
      JSON.stringify({ status: 200, body, url: "https://x.example/" }).replaceAll("/", "\\/"),
      JSON.stringify({ status: 200, body, name: "caf\u00e9" }).replace("\u00e9", "\\u00e9"),
    ]) {
      const out = r.text(text);
      expect(() => JSON.parse(out)).not.toThrow();
      for (const s of readerStrings(out)) expect(shows(s, PEM), s).toBe(false);
      expect(JSON.parse(JSON.parse(out).body)).toEqual({ private_key: REDACTED, ok: true });
    }
  });

  it("with quotes and backslashes too, any number of levels down to the decoding depth", () => {
    const secrets = fc.string({ minLength: 6, maxLength: 10, unit: fc.constantFrom(..."ab\"\\\n\t/é") }).filter((s) => /["\\\n\t]/.test(s));
    fc.assert(
      fc.property(secrets, fc.integer({ min: 1, max: 4 }), fc.boolean(), (secret, levels, slash) => {
        const s = new Redactor([{ name: "S", value: secret }]);
        let text = JSON.stringify({ v: `x${secret}y`, n: 1 });
        for (let i = 0; i < levels; i++) text = JSON.stringify({ body: text, url: "a/b" });
        if (slash) text = text.replaceAll("a/b", "a\\/b");
        const out = s.text(text);
        for (const str of readerStrings(out, levels + 1)) expect(shows(str, secret), str).toBe(false);
      }),
      { numRuns: 300 },
    );
  });
});

describe("a secret across many small tokens (a user sets both the secret and the text)", () => {
  it("does not make the text many times longer: each token it touched became a quoted marker, 13 characters for `0,`", () => {
    const n = 200_000;
    for (const [secret, text] of [
      ["0,0,0,0", `[${"0,".repeat(n)}0]`],
      ["1,   2", `[${"1,   2,".repeat(n)}3]`],
      ['a","a"', `[${'"a",'.repeat(n)}"a"]`],
    ] as const) {
      const r = new Redactor([{ name: "S", value: secret }]);
      const out = r.text(text);
      // Redacted as text, a stretch of 6 characters or more becomes 10: under twice as long.
      expect(out.length, secret).toBeLessThanOrEqual(2 * text.length + 2 * JSON.stringify(REDACTED).length);
      expect(out.includes(secret), secret).toBe(false);
      expect(r.value({ text }).text.length, secret).toBeLessThanOrEqual(2 * text.length + 24);
    }
  });

  it("redacted as text then, still has its strings decoded: a secret behind `\\u` escapes beside it is gone too", () => {
    const r = new Redactor([
      { name: "S", value: "0,0,0,0" },
      { name: "K", value: "secret-value" },
      { name: "PEM", value: PEM },
    ]);
    const text = `[${"0,".repeat(1000)}"\\u0073ecret-value", ${JSON.stringify(JSON.stringify({ k: PEM }))}]`;
    const out = r.text(text);
    expect(out.length).toBeLessThanOrEqual(2 * text.length + 24);
    expect(out).not.toContain("0,0,0,0");
    expect(out).not.toContain("\\u0073ecret");
    expect(out).not.toContain("BEGIN");
  });
});
