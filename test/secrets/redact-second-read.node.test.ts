/**
 * What leaves is what the redactor read (review 20c): the walk read a value once and handed the
 * object on, so anything that answers otherwise when read again (a getter, a Proxy, a `toJSON` that
 * appears later) and anything the walk did not read (a Map's entries, an array's extra properties,
 * both kept by structured clone) left with its secret. Review 21a: bytes were handed on with their
 * own properties, a String object was copied one character at a time, and a function's properties
 * and a symbol's description showed in logs.
 */
import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { Redactor } from "../../src/secrets/redact.js";

const SECRET = "sk-live-abcdef123456";
const r = new Redactor([{ name: "S", value: SECRET }]);
/** Every way a value leaves: JSON (events, stored rows), structured clone (RPC answers). */
const leaves = (value: unknown) => [JSON.stringify(value), JSON.stringify([...deepStrings(structuredClone(value))])];
function* deepStrings(v: unknown): Generator<string> {
  if (typeof v === "string") yield v;
  else if (v instanceof Map) for (const [k, x] of v) yield* deepStrings([k, x]);
  else if (v instanceof Set) for (const x of v) yield* deepStrings(x);
  else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) yield* [k, ...deepStrings(x)];
}

describe("what leaves the redactor is what it read", () => {
  it("a getter that gives the secret only on its second read", () => {
    let reads = 0;
    const sly = {
      get token() {
        return reads++ === 0 ? "nothing" : SECRET;
      },
    };
    for (const out of leaves(r.value({ sly }))) expect(out).not.toContain(SECRET);
  });

  it("a Proxy that answers the secret after its first read, as an object and as an array", () => {
    let gets = 0;
    const object = new Proxy({ k: "v" }, { get: (t, p) => (p === "k" && gets++ > 0 ? SECRET : Reflect.get(t, p)) });
    let items = 0;
    const array = new Proxy(["v"], { get: (t, p) => (p === "0" && items++ > 0 ? SECRET : Reflect.get(t, p)) });
    for (const out of leaves(r.value({ object, array }))) expect(out).not.toContain(SECRET);
  });

  it("a toJSON that appears only after the first read", () => {
    let looks = 0;
    const late = new Proxy({ k: "v" } as Record<string, unknown>, {
      get: (t, p) => (p === "toJSON" ? (looks++ > 0 ? () => SECRET : undefined) : Reflect.get(t, p)),
    });
    expect(JSON.stringify(r.value({ late }))).not.toContain(SECRET);
  });

  it("a Map's keys and values and a Set's members, kept by structured clone, are redacted and kept", () => {
    const out = r.value({ map: new Map([[`k ${SECRET}`, { v: SECRET }]]), set: new Set([SECRET, "plain"]) });
    for (const text of leaves(out)) expect(text).not.toContain(SECRET);
    expect([...out.map.entries()]).toEqual([["k [redacted]", { v: "[redacted]" }]]);
    expect([...out.set]).toEqual(["[redacted]", "plain"]);
  });

  it("an array's extra properties do not ride along", () => {
    const list = Object.assign(["a"], { extra: SECRET });
    const out = r.value({ list });
    expect(Object.keys(out.list)).toEqual(["0"]);
    for (const text of leaves(out)) expect(text).not.toContain(SECRET);
  });

  it("a class instance leaves as its own properties; a Proxy of a Map is read as an object, not thrown on", () => {
    class Box {
      constructor(readonly held: string) {}
      get shown() {
        return SECRET;
      }
    }
    expect(r.value({ box: new Box(SECRET) })).toEqual({ box: { held: "[redacted]" } });
    const fakeMap = new Proxy(new Map([["k", SECRET]]), {});
    expect(r.value({ fakeMap })).toEqual({ fakeMap: {} });
    for (const text of leaves(r.value({ fakeMap }))) expect(text).not.toContain(SECRET);
  });

  it("an Error that answers its message otherwise the second time leaves as the copy's message", () => {
    const e = new Error("first");
    let reads = 0;
    Object.defineProperty(e, "message", { get: () => (reads++ === 0 ? "first" : SECRET) });
    const out = r.value(e);
    expect(out.message).toBe("first");
    expect(JSON.stringify(structuredClone(out))).not.toContain(SECRET);
  });
});

describe("what the copy is made of", () => {
  /** workerd's console prints like util.inspect. */
  const everywhere = (value: unknown) => [...leaves(value), inspect(value, { depth: 10 })];

  it("bytes are copied from their bytes: a typed array's extra property, a lookalike ArrayBuffer and a subclass's field stay behind", () => {
    class Creds extends ArrayBuffer {
      token = SECRET;
    }
    const fake = Object.assign(Object.create(ArrayBuffer.prototype) as object, { token: SECRET });
    const out = r.value({ bytes: Object.assign(new Uint8Array([1, 2]), { note: SECRET }), fake, creds: new Creds(2), wide: new Float64Array([1.5]), view: new DataView(new ArrayBuffer(2)) });
    for (const text of [JSON.stringify(out), inspect(out, { depth: 10 })]) expect(text).not.toContain(SECRET);
    expect([out.bytes, out.wide, out.view, out.creds].map((b) => b.constructor.name)).toEqual(["Uint8Array", "Float64Array", "DataView", "ArrayBuffer"]);
    expect([...(out.bytes as Uint8Array)]).toEqual([1, 2]);
  });

  it("a String object is its string, even without its prototype or behind another tag; a Number or Boolean object its primitive", () => {
    const hidden = Object.setPrototypeOf(new String(SECRET), null) as object;
    Object.defineProperty(hidden, Symbol.toStringTag, { value: "Object" });
    expect(JSON.stringify(r.value({ s: new String(SECRET), hidden, n: new Number(5), b: new Boolean(false) }))).toBe('{"s":"[redacted]","hidden":"[redacted]","n":5,"b":false}');
  });

  it("a function or a symbol is left out, as JSON leaves it out: its properties and description do not reach the logs", () => {
    const out = r.value({ fn: Object.assign(() => 1, { token: SECRET }), sym: Symbol(SECRET), list: [() => 1] });
    for (const text of everywhere(out)) expect(text).not.toContain(SECRET);
    expect(JSON.stringify(out)).toBe('{"list":[null]}');
  });

  it("an array too long to copy is replaced whole, unread", () => {
    const sparse: unknown[] = [];
    sparse.length = 50_000_000;
    sparse[49_999_999] = SECRET;
    expect(r.value({ sparse })).toEqual({ sparse: "[redacted: too many items to check for secrets]" });
  });
});
