/**
 * The direct call's body taken without zod (`plainDirectCallBody`) against `DirectCallBody`, over
 * generated JSON bodies: whenever the plain parser takes a body, zod takes it too and outputs the
 * same fields with the same values in the same order; and the bodies the plain parser leaves to zod
 * are the ones it must (zod refuses them, or they are not the usual shape).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DirectCallBody, plainDirectCallBody } from "../../src/http/schemas.js";

const KEYS = ["input", "sessionId", "continuationToken", "userId", "__proto__", "constructor", "toString", "hasOwnProperty", "city", "", "INPUT"];
const value = fc.oneof(
  fc.string(),
  fc.constant(""),
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double(),
  fc.jsonValue({ maxDepth: 3 }),
  fc.array(fc.string(), { maxLength: 3 }),
);
// Bodies as JSON.parse makes them: own `__proto__` keys included.
const body = fc.oneof(
  fc.dictionary(fc.constantFrom(...KEYS), value, { maxKeys: 5 }).map((o) => JSON.parse(JSON.stringify(o).replace(/"__proto__/g, '"__proto__')) as unknown),
  fc
    .array(fc.tuple(fc.constantFrom(...KEYS), value), { maxLength: 5 })
    .map((pairs) => JSON.parse(`{${pairs.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(",")}}`) as unknown),
  fc.jsonValue({ maxDepth: 2 }),
);

describe("plainDirectCallBody against DirectCallBody (property)", () => {
  it("a body the plain parser takes gives zod's output exactly (fields, values, order)", () => {
    fc.assert(
      fc.property(body, (b) => {
        const plain = plainDirectCallBody(b);
        const parsed = DirectCallBody.safeParse(b);
        if (plain === null) return;
        expect(parsed.success, JSON.stringify(b)).toBe(true);
        expect(Object.entries(plain), JSON.stringify(b)).toEqual(Object.entries(parsed.data as object));
        expect(JSON.stringify(plain)).toBe(JSON.stringify(parsed.data));
      }),
      { numRuns: 5000 },
    );
  });

  it("every body zod takes that has only the three fields is taken by the plain parser (the fast path is not skipped)", () => {
    fc.assert(
      fc.property(body, (b) => {
        const parsed = DirectCallBody.safeParse(b);
        if (!parsed.success) return;
        const own = b !== null && typeof b === "object" ? Object.keys(b) : [];
        if (own.every((k) => k === "input" || k === "sessionId" || k === "continuationToken")) expect(plainDirectCallBody(b), JSON.stringify(b)).not.toBeNull();
      }),
      { numRuns: 5000 },
    );
  });
});
