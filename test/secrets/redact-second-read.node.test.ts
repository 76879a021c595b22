/**
 * What leaves is what the redactor read (review 20c): the walk read a value once and handed the
 * object on, so anything that answers otherwise when read again (a getter, a Proxy, a `toJSON` that
 * appears later) and anything the walk did not read (a Map's entries, an array's extra properties,
 * both kept by structured clone) left with its secret.
 */
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
