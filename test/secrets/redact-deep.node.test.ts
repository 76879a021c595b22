/**
 * A value nested as deep as its sender likes passes the redactor no less read than a shallow one:
 * walked to 300 levels (past the 256 a validated value may have), replaced whole beyond (re-review
 * of the outputSchema check: a text check of the deep part let a quoted, a `\u`-escaped and an
 * Error's secret through). And an issue message quotes a secret whole, so the redactor replaces it.
 */
import { describe, expect, it } from "vitest";
import { Redactor } from "../../src/secrets/redact.js";
import { compileSchema } from "../../src/tools/schema.js";

const nest = (n: number, leaf: unknown) => {
  let v: unknown = leaf;
  for (let i = 0; i < n; i++) v = { a: v };
  return v;
};
const SECRET = "sk-live-abcdef123456";

describe("a secret nested deep in a value", () => {
  it("with a quote, inside a string that is itself JSON, is redacted at 10, 80 and 400 levels", () => {
    const secret = 'pa"ss-word-123';
    const r = new Redactor([{ name: "S", value: secret }]);
    for (const depth of [10, 80, 400]) expect(JSON.stringify(r.value(nest(depth, JSON.stringify({ k: secret }))))).not.toContain("ss-word-123");
  });

  it("\\u-escaped inside a JSON string is redacted at 300 and 330 levels", () => {
    const r = new Redactor([{ name: "S", value: SECRET }]);
    const inner = '{"k":"\\u0073k-live-abcdef123456"}';
    for (const depth of [300, 330]) expect(JSON.stringify(r.value(nest(depth, inner)))).not.toContain("u0073k-live");
  });

  it("in an Error's message is redacted at 80 levels as at 10", () => {
    const r = new Redactor([{ name: "S", value: SECRET }]);
    const leaf = (v: any): any => (v && typeof v === "object" && "a" in v ? leaf(v.a) : v);
    for (const depth of [10, 80]) expect(String(leaf(r.value(nest(depth, new Error(`token ${SECRET}`)))).message)).not.toContain(SECRET);
  });

  it("past 300 levels the deep part is replaced, the rest kept", () => {
    const r = new Redactor([{ name: "S", value: SECRET }]);
    const out = JSON.stringify(r.value({ top: "kept", deep: nest(400, "plain") }));
    expect(out).toContain('"top":"kept"');
    expect(out).toContain("[redacted: nested too deeply");
  });
});

describe("an issue message naming a secret", () => {
  it("quotes it whole, so nothing of it is left once redacted", () => {
    const r = new Redactor([{ name: "S", value: SECRET }]);
    const schema = { type: "object", additionalProperties: { additionalProperties: { type: "string" } } };
    const result = compileSchema("t", "outputSchema", schema as never).validate({ ["x".repeat(490)]: { [SECRET]: 1 } });
    expect(result.ok).toBe(false);
    expect(JSON.stringify(r.value(result.ok ? [] : result.issues))).not.toContain("sk-live-a");
  });
});

describe("a secret in what JSON makes of an object (its toJSON)", () => {
  it("a URL or a class with toJSON carrying a secret is redacted as its JSON; a clean one gives the same JSON", () => {
    const r = new Redactor([{ name: "S", value: SECRET }]);
    class Token {
      toJSON() {
        return { bearer: SECRET };
      }
    }
    const value = { url: new URL(`https://api.example.com/v1?key=${SECRET}`), token: new Token() };
    expect(JSON.stringify(r.value(value))).not.toContain(SECRET);
    expect(JSON.parse(JSON.stringify(r.value(value)))).toEqual({ url: "https://api.example.com/v1?key=[redacted]", token: { bearer: "[redacted]" } });
    const clean = { url: new URL("https://api.example.com/v1"), at: new Date(0), n: [1, { k: "v" }] };
    expect(JSON.stringify(r.value(clean))).toBe(JSON.stringify(clean));
    expect((r.value(clean) as { at: unknown }).at).toBeInstanceOf(Date);
    // JSON asks the object once, with its key: what the redactor read is what leaves.
    let calls = 0;
    const shifty = { toJSON: (key: string) => (calls++ === 0 || key !== "s" ? "clean" : SECRET) };
    const stamp = Object.assign(new Date(0), { toJSON: () => `at ${SECRET}` });
    expect(JSON.stringify(r.value({ s: shifty, when: stamp }))).toBe('{"s":"clean","when":"at [redacted]"}');
    expect(calls).toBe(1);
  });

  it("an Error's name is redacted like its message (review 20c: the copy took it as it was)", () => {
    const r = new Redactor([{ name: "S", value: SECRET }]);
    const e = new Error("boom");
    e.name = `Named ${SECRET}`;
    expect(JSON.stringify(r.value({ e }))).not.toContain(SECRET);
    expect((r.value(e) as Error).name).toBe("Named [redacted]");
  });

  it("a value that holds itself, or one object many times, is walked once per object, not round and round", () => {
    const r = new Redactor([{ name: "S", value: SECRET }]);
    const loop: unknown[] = [];
    loop.push(loop, loop, SECRET);
    expect(JSON.stringify(r.value(loop))).toBe('["[redacted: a value inside itself]","[redacted: a value inside itself]","[redacted]"]');
    let reads = 0;
    const shared = { get k() {
      reads++;
      return SECRET;
    } };
    let wide: unknown = shared;
    for (let i = 0; i < 12; i++) wide = { a: wide, b: wide };
    expect(JSON.stringify(r.value(wide))).not.toContain(SECRET);
    expect(reads).toBe(1);
    const selfish = { toJSON() {
      return [this, this];
    } };
    expect(JSON.stringify(r.value({ x: selfish }))).toBe('{"x":["[redacted: a value inside itself]","[redacted: a value inside itself]"]}');
  });
});
