/**
 * JSON Schema args and outputs are validated as JSON Schema (`@cfworker/json-schema` behind weft's
 * linker), inside workerd: the small schemas a new user tried, deep and cyclic input, refusals
 * that name the keyword, defaults, formats, and the issues a refusal carries.
 */
import { describe, expect, it } from "vitest";
import { WeftError } from "../../src/errors.js";
import { compileSchema } from "../../src/tools/schema.js";
import { MAX_ISSUES } from "../../src/tools/json-schema/compile.js";

const json = (schema: Record<string, unknown>) => compileSchema("t", "outputSchema", schema as never);
const ok = (schema: Record<string, unknown>, value: unknown) => json(schema).validate(value).ok;
const refusal = (schema: Record<string, unknown>): WeftError => {
  try {
    json(schema);
  } catch (e) {
    if (e instanceof WeftError) return e;
    throw e;
  }
  throw new Error("expected a refusal");
};
const nest = (depth: number): unknown => {
  let value: unknown = {};
  for (let i = 0; i < depth; i++) value = { child: value };
  return value;
};

describe("the small schemas from the report", () => {
  it("keywords on a node without type still apply", () => {
    expect(ok({ type: "object", properties: { v: { maxLength: 2 } } }, { v: "foo" })).toBe(false);
    expect(ok({ type: "object", properties: { v: { maxLength: 2 } } }, { v: "fo" })).toBe(true);
    expect(ok({ properties: { a: { required: ["x"] } } }, { a: {} })).toBe(false);
    expect(ok({ items: { pattern: "^a" }, minItems: 1 }, ["b"])).toBe(false);
    expect(ok({ items: { pattern: "^a" }, minItems: 1 }, [])).toBe(false);
  });

  it("const and enum compare structurally", () => {
    expect(ok({ const: { a: 1 } }, { a: 1 })).toBe(true);
    expect(ok({ const: { a: 1 } }, { a: 2 })).toBe(false);
    expect(ok({ enum: [[1, 2]] }, [1, 2])).toBe(true);
    expect(ok({ enum: [[1, 2]] }, [2, 1])).toBe(false);
  });

  it("array bounds hold without items, required holds without properties", () => {
    expect(ok({ type: "array", minItems: 2 }, [])).toBe(false);
    expect(ok({ type: "object", required: ["x"] }, {})).toBe(false);
    expect(ok({ type: "object", required: ["x"] }, { x: null })).toBe(true);
  });

  it("patterns are Unicode-aware", () => {
    expect(ok({ type: "string", pattern: "^\\p{L}+$" }, "é")).toBe(true);
    expect(ok({ type: "string", pattern: "^\\p{L}+$" }, "1")).toBe(false);
  });

  it("optional properties named like Object.prototype members do not make {} fail", () => {
    const schema = { type: "object", properties: { constructor: { type: "string" }, toString: { type: "number" } } };
    expect(ok(schema, {})).toBe(true);
    expect(ok(schema, { constructor: 1 })).toBe(false);
  });
});

describe("deep and cyclic schemas never overflow the stack", () => {
  const tree = { type: "object", properties: { child: { $ref: "#" } } };

  it("a value nested 2,000 levels answers invalid with the path, not a RangeError", () => {
    const result = json(tree).validate(nest(2000));
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.issues[0]).toMatchObject({ keyword: "depth", message: expect.stringMatching(/nested deeper than 256 levels/) });
      expect(result.issues[0]!.path.slice(0, 3)).toEqual(["child", "child", "child"]);
    }
    expect(json(tree).validate(nest(100)).ok).toBe(true);
  });

  it("a $ref that only points at itself is refused at definition, naming $ref", () => {
    expect(refusal({ $ref: "#" })).toMatchObject({ code: "invalid_config", details: { keyword: "$ref" } });
    expect(refusal({ $defs: { a: { $ref: "#/$defs/b" }, b: { anyOf: [{ $ref: "#/$defs/a" }] } }, $ref: "#/$defs/a" }).message).toMatch(/leads back to itself/);
  });

  it("a pattern (or patternProperties key) that is not a u-flag regular expression is refused at definition, naming the keyword and its path", () => {
    const bad = refusal({ type: "object", properties: { code: { type: "string", pattern: "^A\\-[0-9]+$" } } });
    expect(bad).toMatchObject({ code: "invalid_config", details: { keyword: "pattern", path: ["properties", "code", "pattern"] } });
    expect(bad.message).toMatch(/^tool "t": outputSchema at #\/properties\/code\/pattern: pattern "\^A\\\\-\[0-9\]\+\$" is not a JavaScript regular expression with the u flag/);
    expect(refusal({ type: "object", patternProperties: { "^x\\-": { type: "string" } } })).toMatchObject({ details: { keyword: "patternProperties", path: ["patternProperties", "^x\\-"] } });
    expect(refusal({ $defs: { d: { pattern: "(" } }, items: { $ref: "#/$defs/d" } })).toMatchObject({ details: { keyword: "pattern", path: ["$defs", "d", "pattern"] } });
    // A valid one compiles and validates as before.
    expect(ok({ type: "string", pattern: "^\\p{L}+$" }, "héllo")).toBe(true);
    expect(ok({ type: "string", pattern: "^\\p{L}+$" }, "h3llo")).toBe(false);
  });

  it("a remote $ref and an unsupported keyword are refused with the keyword named", () => {
    expect(refusal({ $ref: "https://example.com/schema.json" })).toMatchObject({ details: { keyword: "$ref", remote: "https://example.com/schema.json" } });
    expect(refusal({ $schema: "https://json-schema.org/draft/2019-09/schema", $recursiveRef: "#" })).toMatchObject({ details: { keyword: "$recursiveRef" } });
    expect(refusal({ $schema: "https://example.com/my-metaschema" })).toMatchObject({ details: { keyword: "$schema" } });
  });
});

describe("drafts, formats, defaults and what the model sees", () => {
  it("takes the draft from $schema, 2020-12 by default", () => {
    expect(ok({ $schema: "http://json-schema.org/draft-07/schema#", items: [{ type: "string" }], additionalItems: false }, ["a", "b"])).toBe(false);
    expect(ok({ prefixItems: [{ type: "string" }], items: false }, ["a", "b"])).toBe(false);
  });

  it("treats format as an annotation in 2020-12 unless the tool opts in", () => {
    expect(ok({ type: "string", format: "email" }, "not an email")).toBe(true);
    expect(compileSchema("t", "outputSchema", { type: "string", format: "email" } as never, { assertFormat: true }).validate("not an email").ok).toBe(false);
  });

  it("applies valid defaults and keeps them off values the caller gave", () => {
    const schema = compileSchema("t", "args", { type: "object", properties: { n: { type: "integer", default: 3 }, o: { type: "object", properties: { x: { default: "d" } } } } });
    expect(schema.validate({ o: {} })).toEqual({ ok: true, data: { n: 3, o: { x: "d" } } });
    expect(schema.validate({ n: 1 })).toEqual({ ok: true, data: { n: 1 } });
  });

  it("applies a default written beside a $ref, as Pydantic v2 writes an enum or model field", () => {
    // `model_json_schema()` of a Pydantic v2 model with `unit: Unit = Unit.c` and `opts: Opts = Opts(depth=2)`.
    const pydantic = {
      $defs: {
        Unit: { enum: ["c", "f"], title: "Unit", type: "string" },
        Opts: { properties: { depth: { default: 1, title: "Depth", type: "integer" } }, title: "Opts", type: "object" },
      },
      properties: { city: { title: "City", type: "string" }, unit: { $ref: "#/$defs/Unit", default: "c" }, opts: { $ref: "#/$defs/Opts", default: { depth: 2 } } },
      required: ["city"],
      title: "Weather",
      type: "object",
    };
    const schema = compileSchema("weather", "args", pydantic as never);
    expect(schema.validate({ city: "Paris" })).toEqual({ ok: true, data: { city: "Paris", unit: "c", opts: { depth: 2 } } });
    expect(schema.validate({ city: "Oslo", unit: "f", opts: {} })).toEqual({ ok: true, data: { city: "Oslo", unit: "f", opts: { depth: 1 } } });
    expect(schema.validate({ city: "Oslo", unit: "k" }).ok).toBe(false);
    // A default its own $ref target refuses is left out with a warning, never a failed build.
    const wrong = compileSchema("weather", "args", { ...pydantic, properties: { ...pydantic.properties, unit: { $ref: "#/$defs/Unit", default: "kelvin" } } } as never);
    expect(wrong.validate({ city: "Paris" })).toEqual({ ok: true, data: { city: "Paris", opts: { depth: 2 } } });
  });

  it("applies a default for a property named __proto__ as that key, never as the value's prototype", () => {
    // JSON.parse, as a definition read from JSON gives it: "__proto__" is an own key of `properties`.
    const schema = compileSchema("t", "args", JSON.parse('{"type":"object","properties":{"__proto__":{"type":"object","default":{"admin":true}}}}'));
    const result = schema.validate(JSON.parse("{}"));
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const data = result.data as Record<string, unknown>;
    expect(Object.getPrototypeOf(data)).toBe(Object.prototype);
    expect(data.admin).toBeUndefined();
    expect(JSON.stringify(data)).toBe('{"__proto__":{"admin":true}}');
  });

  it("shows the model the author's schema, keywords and all", () => {
    const author = { type: "object", properties: { v: { maxLength: 2, pattern: "^a" }, c: { const: { a: 1 } } }, required: ["v"], $defs: { x: { type: "string" } } };
    expect(compileSchema("t", "args", author as never).jsonSchema).toEqual(author);
  });

  it("reports issues with array paths into the value", () => {
    const schema = { type: "object", properties: { items: { type: "array", items: { type: "object", properties: { n: { type: "integer" } } } } }, additionalProperties: false };
    const result = json(schema).validate({ items: [{ n: 1 }, { n: 1.5 }], extra: true });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.issues.map((i) => i.path)).toEqual(expect.arrayContaining([["items", 1, "n"], ["extra"]]));
  });
});

describe("a schema's cost to check is bounded at definition, and so is what a failure reports", () => {
  /** An allOf of two $refs to the next level, `n` levels: 2^n checks of each value it meets. */
  const chain = (n: number) => {
    const $defs: Record<string, unknown> = { [`s${n}`]: { type: "object" } };
    for (let i = 0; i < n; i++) $defs[`s${i}`] = { allOf: [{ $ref: `#/$defs/s${i + 1}` }, { $ref: `#/$defs/s${i + 1}` }] };
    return { type: "object", allOf: [{ $ref: "#/$defs/s0" }], $defs };
  };
  /** `k` resources with $dynamicAnchors that refer to each other: linked once per scope, k * 2^k. */
  const scopes = (k: number) => {
    const $defs: Record<string, unknown> = {};
    for (let i = 0; i < k; i++) {
      const properties: Record<string, unknown> = {};
      for (let j = 0; j < k; j++) if (j !== i) properties[`p${j}`] = { $ref: `r${j}` };
      $defs[`d${i}`] = { $id: `r${i}`, $dynamicAnchor: `a${i}`, type: "object", properties };
    }
    return { type: "object", $defs, properties: { x: { $ref: "r0" } } };
  };

  it("an allOf chain applying one $ref millions of times to a value is refused naming $ref; a short one is kept", () => {
    expect(refusal(chain(22)).details).toMatchObject({ keyword: "$ref", reason: "too many subschemas applied in place" });
    expect(ok(chain(5), {})).toBe(true);
    expect(ok(chain(5), [])).toBe(false);
  });

  it("resources whose $dynamicAnchor scopes would link exponentially many subschemas are refused; a few are kept", () => {
    expect(refusal(scopes(13)).details).toMatchObject({ keyword: "$dynamicAnchor", reason: "too many subschemas when linked" });
    expect(ok(scopes(4), { x: { p1: {} } })).toBe(true);
  });

  it("a value failing at every one of many places reports at most MAX_ISSUES issues, each quoting a long enum short", () => {
    const schema = { type: "object", additionalProperties: { enum: Array.from({ length: 200 }, (_, i) => `value-${i}`) } };
    const result = json(schema).validate(Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${i}`, 0])));
    expect(result.ok).toBe(false);
    const issues = result.ok ? [] : result.issues;
    expect(issues.length).toBeGreaterThan(1);
    expect(issues.length).toBeLessThanOrEqual(MAX_ISSUES);
    // A long enum is quoted by its start and its size.
    for (const i of issues) expect(i.message.length).toBeLessThan(400);
  });
});
