/**
 * A number holding a secret (a numeric PIN a tool emits, throws or returns as a number) is redacted
 * by `Redactor.content` as the JSON text path redacts it: the marker as a string, the whole number.
 * The value path redacted strings only, so `state.emit("x", { pin: 12345678 })` with env secret
 * "12345678" was stored and sent as written. `Redactor.value` (weft's own answers) leaves numbers:
 * a cursor or a time never turns into a string under its reader.
 */
import { describe, expect, it } from "vitest";
import { REDACTED, Redactor } from "../../src/secrets/redact.js";

const PIN = "12345678";
const r = new Redactor([{ name: "PIN", value: PIN }]);

describe("numbers in a value", () => {
  it("a number whose JSON text holds a secret becomes the marker, the whole number", () => {
    expect(r.content({ pin: 12345678, near: 1234567, longer: 9123456780, negative: -12345678, fraction: 0.12345678 })).toEqual({
      pin: REDACTED,
      near: 1234567,
      longer: REDACTED,
      negative: REDACTED,
      fraction: REDACTED,
    });
  });

  it("a secret with a sign, a point or an exponent is searched in the number's JSON text", () => {
    const signed = new Redactor([{ name: "A", value: "-12345678" }, { name: "B", value: "3.14159265" }, { name: "C", value: "1.5e-7" }, { name: "D", value: "1e+21" + "0" }]);
    // 1.5e-7 and 1e21 are written with an exponent by JSON; 12345678 has no sign.
    expect(signed.content([-12345678, 12345678, 3.14159265, 1.5e-7, 1e21, 1e210, 0.00000015])).toEqual([REDACTED, 12345678, REDACTED, REDACTED, 1e21, REDACTED, REDACTED]);
  });

  it("agrees with the JSON text path", () => {
    const value = { a: 12345678, b: [1, 91234567899, 1234567, -12345678.5], c: { d: 0.123456789, e: 2 } };
    expect(r.content(value)).toEqual(JSON.parse(r.text(JSON.stringify(value))));
  });

  it("everywhere a value may carry one: nested, in a Map or a Set, boxed, as a BigInt", () => {
    const out = r.content({ deep: [[{ pin: 12345678 }]], map: new Map([[12345678, 12345678]]), set: new Set([12345678, 7]), boxed: Object(12345678) as number, big: 123456789n });
    expect(out.deep).toEqual([[{ pin: REDACTED }]]);
    expect([...out.map]).toEqual([[REDACTED, REDACTED]]);
    expect([...out.set]).toEqual([REDACTED, 7]);
    expect(out.boxed).toBe(REDACTED);
    expect(out.big).toBe(REDACTED);
  });

  it("with many secrets (one search for all of them), as with few", () => {
    const many = new Redactor([...Array.from({ length: 40 }, (_, i) => ({ name: `K${i}`, value: `key-${i}-abcdefgh` })), { name: "PIN", value: PIN }]);
    expect(many.content({ pin: 912345678, other: 87654321, key: "key-7-abcdefgh" })).toEqual({ pin: REDACTED, other: 87654321, key: REDACTED });
  });

  it("numbers are left as they are when no secret could be in a number's text", () => {
    const words = new Redactor([{ name: "K", value: "sk-live-12345678" }]);
    expect(words.content({ pin: 12345678, text: "sk-live-12345678", n: Number.NaN, inf: Infinity })).toEqual({ pin: 12345678, text: REDACTED, n: Number.NaN, inf: Infinity });
    expect(r.content({ n: Number.NaN, inf: -Infinity, zero: -0 })).toEqual({ n: Number.NaN, inf: -Infinity, zero: -0 });
  });

  it("weft's own numbers, through value(), are left as they are whatever digits they hold", () => {
    const answer = { lastSeq: 12345678, since: 1712345678901, usage: { tokens: 912345678 }, text: "pin 12345678" };
    expect(r.value(answer)).toEqual({ lastSeq: 12345678, since: 1712345678901, usage: { tokens: 912345678 }, text: `pin ${REDACTED}` });
  });
});
