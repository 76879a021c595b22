/**
 * One check's cost is bounded for schemas that compile (re-review of the outputSchema check):
 * `$ref`s that step into the value under an `anyOf` or several `patternProperties` double (or
 * tenfold) the work at each level of a small value, so a check follows at most `MAX_REF_STEPS`
 * `$ref`s (more for a larger value) and then refuses the value, naming the cost. A long `enum`
 * is quoted short in every failure's message (a failure per array item, or per `anyOf` branch,
 * each quoted a 60 KB enum whole).
 */
import { describe, expect, it } from "vitest";
import { compileSchema } from "../../src/tools/schema.js";

const json = (schema: Record<string, unknown>) => compileSchema("t", "outputSchema", schema as never);
const nestedArray = (depth: number) => {
  let v: unknown = [];
  for (let i = 0; i < depth; i++) v = [v];
  return v;
};
const nestedA = (depth: number) => {
  let v: unknown = {};
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
};
const costly = expect.objectContaining({ ok: false, issues: [expect.objectContaining({ keyword: "$ref", message: expect.stringContaining("costs too much to check") })] });

describe("a check's $ref steps", () => {
  it("an anyOf of two $refs into items: a shallow value is checked, a 20-level one refused for its cost", () => {
    const compiled = json({ $defs: { s: { anyOf: [{ items: { $ref: "#/$defs/s" } }, { items: { $ref: "#/$defs/s" } }] } }, $ref: "#/$defs/s" });
    expect(compiled.validate(nestedArray(4)).ok).toBe(true);
    expect(compiled.validate(nestedArray(20))).toEqual(costly);
  });

  it("nine patternProperties and a property applying $ref \"#\" to one key: 3 levels checked, 6 refused for their cost", () => {
    const patternProperties: Record<string, unknown> = {};
    for (let i = 0; i < 9; i++) patternProperties[`^a${"(?:)".repeat(i)}$`] = { $ref: "#" };
    const compiled = json({ properties: { a: { $ref: "#" } }, patternProperties });
    expect(compiled.validate(nestedA(3)).ok).toBe(true);
    expect(compiled.validate(nestedA(6))).toEqual(costly);
  });

  it("a schema's own default is checked within the same budget: not applied, said in a warning", () => {
    const compiled = json({ $defs: { s: { anyOf: [{ items: { $ref: "#/$defs/s" } }, { items: { $ref: "#/$defs/s" } }], default: nestedArray(20) } }, $ref: "#/$defs/s" });
    expect(compiled.warnings).toEqual([expect.stringContaining("costs too much to check")]);
  });

  it("a large value gets a budget in proportion: 5,000 items each through a $ref are checked", () => {
    const compiled = json({ type: "array", items: { $ref: "#/$defs/n" }, $defs: { n: { anyOf: [{ $ref: "#/$defs/i" }, { $ref: "#/$defs/i" }] }, i: { type: "integer" } } });
    expect(compiled.validate(Array.from({ length: 5000 }, (_, i) => i)).ok).toBe(true);
  });
});

describe("a long enum in failure messages", () => {
  const values = Array.from({ length: 3000 }, (_, i) => `value-number-${i}`);

  it("failed through 2,048 anyOf branches: every message quotes it short", () => {
    const $defs: Record<string, unknown> = { e: { enum: values }, s11: { $ref: "#/$defs/e" } };
    for (let i = 0; i < 11; i++) $defs[`s${i}`] = { anyOf: [{ $ref: `#/$defs/s${i + 1}` }, { $ref: `#/$defs/s${i + 1}` }] };
    const result = json({ $ref: "#/$defs/s0", $defs }).validate(0);
    expect(result.ok).toBe(false);
    for (const issue of result.ok ? [] : result.issues) expect(issue.message.length).toBeLessThan(400);
  });

  it("failed by every item under contains: a short answer, and an item matching it still passes", () => {
    const compiled = json({ contains: { enum: values } });
    const result = compiled.validate(Array(5000).fill(0));
    expect(result.ok).toBe(false);
    expect(JSON.stringify(result).length).toBeLessThan(20_000);
    expect(compiled.validate([0, "value-number-2999"]).ok).toBe(true);
  });
});
