import { describe, expect, it } from "vitest";
import {
  TOOL_NAME_RULE,
  convertFunctions,
  convertParameters,
  mapToolNames,
  toToolName,
} from "../../scripts/bfcl/convert.mjs";
import { expectedArguments, expectedCall } from "../../scripts/bfcl/answers.mjs";
import { createReference, pathsRelated } from "../../scripts/bfcl/reference.mjs";
import { invalidVariants } from "../../scripts/bfcl/variants.mjs";
import { planCase, formatTally, emptyTally } from "../../scripts/bfcl/harness.mjs";

describe("tool names", () => {
  it.each([
    ["uber.ride", "uber_ride"],
    ["getWeather", "get_weather"],
    ["math_toolkit.sum_of_multiples", "math_toolkit_sum_of_multiples"],
    ["cellBiology.getCellType", "cell_biology_get_cell_type"],
    ["CalculateTax", "calculate_tax"],
    ["calculate_ROI", "calculate_roi"],
    ["color_converter.RGB_to_Pantone", "color_converter_rgb_to_pantone"],
    ["XMLParser", "xml_parser"],
    ["sports.ranking.get_champion", "sports_ranking_get_champion"],
    ["a--b  c", "a_b_c"],
    ["2fast", "fn_2fast"],
    ["...", "fn"],
  ])("%s -> %s", (name, tool) => {
    expect(toToolName(name)).toBe(tool);
    expect(tool).toMatch(TOOL_NAME_RULE);
  });

  it("cuts long names to 64 characters without a trailing underscore", () => {
    const tool = toToolName(`${"a".repeat(63)}.b`);
    expect(tool).toBe("a".repeat(63));
    expect(toToolName("x".repeat(100))).toHaveLength(64);
  });

  it("maps back to the original names", () => {
    const { toTool, toOriginal } = mapToolNames(["uber.ride", "getWeather"]);
    expect(toTool.get("uber.ride")).toBe("uber_ride");
    expect(toOriginal.get("uber_ride")).toBe("uber.ride");
    expect(toOriginal.get("get_weather")).toBe("getWeather");
  });

  it("resolves collisions deterministically, in case order", () => {
    const names = ["uber.ride", "uber_ride", "uberRide", "uber__ride"];
    const { toTool, toOriginal } = mapToolNames(names);
    expect(names.map((n) => toTool.get(n))).toEqual(["uber_ride", "uber_ride_2", "uber_ride_3", "uber_ride_4"]);
    for (const n of names) expect(toOriginal.get(toTool.get(n)!)).toBe(n);
    expect(mapToolNames(names).toTool).toEqual(toTool);
  });

  it("keeps suffixed collisions within 64 characters", () => {
    const long = "a".repeat(70);
    const { toTool } = mapToolNames([long, `${long}.x`.replace(/\.x$/, "!")]);
    const second = toTool.get(`${long}!`)!;
    expect(second).toMatch(TOOL_NAME_RULE);
    expect(second.endsWith("_2")).toBe(true);
  });

  it("a name listed twice maps to one tool; the first definition wins", () => {
    const { tools } = convertFunctions([
      { name: "f.x", description: "first", parameters: { type: "dict", properties: {} } },
      { name: "f.x", description: "second", parameters: { type: "dict", properties: {} } },
    ]);
    expect(tools.map((t) => [t.name, t.description])).toEqual([["f_x", "first"]]);
  });
});

describe("schema conversion", () => {
  it("maps BFCL types to JSON Schema types, nested", () => {
    const schema = convertParameters({
      type: "dict",
      properties: {
        f: { type: "float", default: 1.5 },
        t: { type: "tuple", items: { type: "float" } },
        a: { type: "any", description: "anything" },
        o: { type: "dict", properties: { n: { type: "integer" }, s: { type: "String" } }, required: ["n"] },
        l: { type: "Array", items: { type: "Boolean" } },
        e: { type: "string", enum: ["a", "b"] },
        u: { type: ["String", "null"] },
      },
      required: ["f"],
    });
    expect(schema).toEqual({
      type: "object",
      properties: {
        f: { type: "number", default: 1.5 },
        t: { type: "array", items: { type: "number" } },
        a: { description: "anything" },
        o: { type: "object", properties: { n: { type: "integer" }, s: { type: "string" } }, required: ["n"] },
        l: { type: "array", items: { type: "boolean" } },
        e: { type: "string", enum: ["a", "b"] },
        u: { type: ["string", "null"] },
      },
      required: ["f"],
    });
  });

  it("keeps everything but type names exactly as published: optional flags, required lists, bad defaults", () => {
    const raw = {
      type: "dict",
      properties: { a: { type: "integer", optional: true, default: "5 years" }, b: { type: "string", default: null }, p: { type: "tuple", items: [{ type: "float" }] } },
      required: ["a", "b"],
    };
    expect(convertParameters(raw)).toEqual({
      type: "object",
      properties: { a: { type: "integer", optional: true, default: "5 years" }, b: { type: "string", default: null }, p: { type: "array", items: [{ type: "number" }] } },
      required: ["a", "b"],
    });
  });

  it("converts the Java and JavaScript type names of BFCL's single-turn categories", () => {
    const names = ["byte", "short", "long", "char", "double", "Array", "ArrayList", "Set", "HashMap", "Hashtable", "Queue", "Stack", "Bigint", "Boolean", "String", "any"];
    const notes: string[] = [];
    const schema = convertParameters({ type: "dict", properties: Object.fromEntries(names.map((n) => [n, { type: n }])) }, (n: string) => notes.push(n));
    expect(notes).toEqual([]);
    expect(Object.values(schema.properties as object).map((p: any) => p.type)).toEqual([
      "integer", "integer", "integer", "string", "number", "array", "array", "array", "object", "object", "array", "array", "integer", "boolean", "string", undefined,
    ]);
  });

  it("reads an unknown type name as no constraint and reports it", () => {
    const { tools, notes } = convertFunctions([{ name: "f", parameters: { type: "dict", properties: { x: { type: "complex", description: "d" } } } }]);
    expect(tools[0]!.parameters.properties).toEqual({ x: { description: "d" } });
    expect(notes).toEqual(['f.parameters.properties.x.type: unknown type "complex" read as no constraint']);
  });

  it("does not modify its input", () => {
    const input = { type: "dict", properties: { x: { type: "float", optional: true } }, required: ["x"] };
    const before = structuredClone(input);
    convertParameters(input);
    expect(input).toEqual(before);
  });
});

describe("expected arguments", () => {
  it("takes the first acceptable value and leaves out an argument whose first value is empty", () => {
    expect(expectedArguments({ base: [10, 11], unit: ["", "units"], height: [5], mode: ["fast", ""] })).toEqual({ base: 10, height: 5, mode: "fast" });
  });

  it("resolves nested lists inside object values and inside objects in arrays", () => {
    const answer = {
      filter: [{ field: ["age", "years"], op: ["", ">"], nested: [{ deep: [true, false] }] }, { field: ["other"] }],
      rows: [[{ name: ["Li Lei"], age: [18, ""] }, { name: ["Li Li"], age: ["", 21] }]],
      matrix: [[[1, 2], [3, 4]]],
    };
    expect(expectedArguments(answer)).toEqual({
      filter: { field: "age", nested: { deep: true } },
      rows: [{ name: "Li Lei", age: 18 }, { name: "Li Li" }],
      matrix: [[1, 2], [3, 4]],
    });
  });

  it("leaves out an argument with no acceptable value (an empty list)", () => {
    expect(expectedArguments({ a: [], b: [[]] })).toEqual({ b: [] });
  });

  it("reads a ground_truth entry", () => {
    expect(expectedCall({ "uber.ride": { loc: ["x"], time: [600] } })).toEqual({ name: "uber.ride", args: { loc: "x", time: 600 } });
    expect(() => expectedCall({ a: {}, b: {} })).toThrow(/exactly one function name/);
  });
});

describe("reference validator", () => {
  const reference = createReference();

  it("applies defaults and keeps keys the schema allows", () => {
    const { check } = reference.compile({ type: "object", properties: { a: { type: "integer", default: 3 }, o: { type: "object" } } });
    expect(check({ o: { any: 1 }, extra: "kept" })).toEqual({ ok: true, value: { a: 3, o: { any: 1 }, extra: "kept" } });
  });

  it("names the failing paths, missing keys included", () => {
    const { check } = reference.compile({
      type: "object",
      properties: { age: { type: "number" }, rows: { type: "array", items: { type: "object", properties: { n: { type: "string" } }, required: ["n"] } } },
      required: ["age"],
    });
    const verdict = check({ rows: [{ n: "x" }, {}] });
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.paths).toEqual(expect.arrayContaining([["age"], ["rows", "1", "n"]]));
  });

  it("judges the schema as published: a default its own schema refuses is not applied, and does not make the call invalid", () => {
    const { check, badDefaults } = reference.compile({
      type: "object",
      properties: { s: { type: "string", default: null }, n: { type: "integer", default: "5 years" }, ok: { type: "string", default: "x" } },
    });
    expect(badDefaults).toHaveLength(2);
    expect(check({})).toEqual({ ok: true, value: { ok: "x" } });
    expect(check({ n: "5 years" }).ok).toBe(false);
  });

  it("relates paths by prefix, numbers and strings alike", () => {
    expect(pathsRelated(["a"], ["a", "b"])).toBe(true);
    expect(pathsRelated(["rows", 1], ["rows", "1", "n"])).toBe(true);
    expect(pathsRelated([], ["a"])).toBe(false);
    expect(pathsRelated(["a"], ["b"])).toBe(false);
  });
});

describe("invalid variants", () => {
  const reference = createReference();
  const schema = {
    type: "object",
    properties: {
      name: { type: "string" },
      count: { type: "integer", default: 1 },
      mode: { type: "string", enum: ["fast", "slow"] },
      tags: { type: "array", items: { type: "string" } },
      opts: { type: "object", properties: { depth: { type: "integer" } }, additionalProperties: false },
      any: {},
    },
    required: ["name", "tags"],
  };
  const { check } = reference.compile(schema);

  it("plants one fault of each kind the schema allows, each refused by the reference at its path", () => {
    const variants = invalidVariants(schema, { any: 1, name: "x", count: 2, mode: "fast", tags: ["a"], opts: { depth: 1 } }, check);
    expect(variants.map((v) => [v.kind, v.path])).toEqual([
      ["wrong_type", ["name"]],
      ["missing_required", ["name"]],
      ["enum_violation", ["mode"]],
      ["fraction_for_integer", ["count"]],
      ["nested_wrong_type", ["opts", "depth"]],
      ["wrong_array_item", ["tags", 0]],
      ["extra_property", ["opts", "weft_extra"]],
      ["null_for_non_nullable", ["name"]],
    ]);
    for (const v of variants) {
      const verdict = check(v.args);
      expect(verdict.ok).toBe(false);
      if (!verdict.ok) expect(verdict.paths.some((p) => pathsRelated(p, v.path))).toBe(true);
    }
    expect(variants.find((v) => v.kind === "fraction_for_integer")!.args.count).toBe(2.5);
  });

  it("makes no variant the reference would accept", () => {
    const loose = { type: "object", properties: { a: { type: ["string", "null"] }, b: {} }, required: [] };
    expect(invalidVariants(loose, { a: "x", b: 1 }, reference.compile(loose).check).map((v) => v.kind)).toEqual(["wrong_type"]);
  });

  it("does not remove a required argument that has a default", () => {
    const s = { type: "object", properties: { a: { type: "string", default: "d" } }, required: ["a"] };
    expect(invalidVariants(s, { a: "x" }, reference.compile(s).check).map((v) => v.kind)).toEqual(["wrong_type", "null_for_non_nullable"]);
  });
});

describe("case planning", () => {
  const reference = createReference();

  it("splits ground truth into valid and schema-breaking calls, and plans variants for the valid ones", () => {
    const plan = planCase(
      {
        id: "t_0",
        content: "q",
        functions: [{ name: "uber.ride", description: "d", parameters: { type: "dict", properties: { loc: { type: "string" }, n: { type: "integer", default: "two" } }, required: ["loc"] } }],
        groundTruth: [{ "uber.ride": { loc: ["here"] } }, { "uber.ride": { loc: [""] } }],
      },
      reference,
    );
    expect(plan.tools[0]!.name).toBe("uber_ride");
    expect(plan.notes).toHaveLength(1); // the "two" default on an integer, kept but not applied
    expect(plan.tools[0]!.parameters.properties).toMatchObject({ n: { type: "integer", default: "two" } });
    const [first, second] = plan.turns;
    expect(first!.map((c) => c.kind)).toEqual(["valid", "breaking"]);
    expect(first![0]).toMatchObject({ toolName: "uber_ride", originalName: "uber.ride", expected: { loc: "here" } });
    expect(second!.map((c) => (c.kind === "variant" ? c.variant : c.kind))).toEqual(["wrong_type", "missing_required", "null_for_non_nullable"]);
  });

  it("refuses to plan a call to a function the case does not offer", () => {
    expect(() => planCase({ id: "t", content: "q", functions: [], groundTruth: [{ f: {} }] }, reference)).toThrow(/does not offer/);
  });

  it("formats the summary line", () => {
    const t = emptyTally();
    t.valid = [2, 3];
    expect(formatTally("bfcl", t)).toBe(
      "bfcl: 2/3 valid calls executed exactly, 0/0 schema-breaking calls refused, 0/0 invalid variants refused, 0/0 offered tools advertised",
    );
  });
});
