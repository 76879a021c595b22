import { describe, expect, it } from "vitest";
import {
  ConversionError,
  TOOL_NAME_RULE,
  convertFunctions,
  convertParameters,
  mapToolNames,
  toToolName,
} from "../../scripts/bfcl/convert.mjs";
import { expectedArguments, expectedCall } from "../../scripts/bfcl/answers.mjs";
import { createReference, parsePath, pathsRelated, refusalPaths } from "../../scripts/bfcl/reference.mjs";
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

  it("folds optional flags (boolean or string) into required and drops them", () => {
    const schema = convertParameters({
      type: "dict",
      properties: { a: { type: "integer", optional: true }, b: { type: "integer", optional: "true" }, c: { type: "integer", optional: "false" }, d: { type: "integer", required: true } },
      required: ["a", "b", "c"],
    });
    expect(schema.required).toEqual(["c", "d"]);
    expect(JSON.stringify(schema)).not.toContain("optional");
  });

  it("turns tuple-form items into prefixItems", () => {
    const schema = convertParameters({ type: "dict", properties: { p: { type: "tuple", items: [{ type: "float" }, { type: "str" }] } } });
    expect(schema.properties).toEqual({ p: { type: "array", prefixItems: [{ type: "number" }, { type: "string" }] } });
  });

  it("gives the root an object type and refuses a non-object root", () => {
    expect(convertParameters({ properties: {} }).type).toBe("object");
    expect(() => convertParameters({ type: "string" })).toThrow(ConversionError);
  });

  it("refuses unknown type names, naming the function and path", () => {
    expect(() => convertFunctions([{ name: "f", parameters: { type: "dict", properties: { x: { type: "complex" } } } }])).toThrow(
      /f\.parameters\.properties\.x\.type: unknown type "complex"/,
    );
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
    const check = reference.compile({ type: "object", properties: { a: { type: "integer", default: 3 }, o: { type: "object" } } });
    expect(check({ o: { any: 1 }, extra: "kept" })).toEqual({ ok: true, value: { a: 3, o: { any: 1 }, extra: "kept" } });
  });

  it("names the failing paths, missing keys included", () => {
    const check = reference.compile({
      type: "object",
      properties: { age: { type: "number" }, rows: { type: "array", items: { type: "object", properties: { n: { type: "string" } }, required: ["n"] } } },
      required: ["age"],
    });
    const verdict = check({ rows: [{ n: "x" }, {}] });
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.paths).toEqual(expect.arrayContaining([["age"], ["rows", "1", "n"]]));
  });

  it("drops defaults that fail their own schema, and only those", () => {
    const { schema, dropped } = reference.dropNonConformingDefaults({
      type: "object",
      properties: { s: { type: "string", default: null }, n: { type: "integer", default: "5 years" }, ok: { type: "string", default: "x" } },
    });
    expect(schema.properties).toEqual({ s: { type: "string" }, n: { type: "integer" }, ok: { type: "string", default: "x" } });
    expect(dropped).toHaveLength(2);
  });

  it("parses weft refusals into paths", () => {
    expect(refusalPaths("invalid_tool_input: age: expected number, received string")).toEqual([["age"]]);
    expect(refusalPaths("invalid_tool_input:\nrows[1].n: expected string\nage: required")).toEqual([["rows", "1", "n"], ["age"]]);
    expect(refusalPaths("boom")).toBeNull();
    expect(parsePath("input")).toEqual([]);
    expect(pathsRelated(["a"], ["a", "b"])).toBe(true);
    expect(pathsRelated([], ["a"])).toBe(false);
    expect(pathsRelated(["a"], ["b"])).toBe(false);
  });
});

describe("invalid variants", () => {
  const reference = createReference();
  const schema = {
    type: "object",
    properties: { name: { type: "string" }, count: { type: "integer", default: 1 }, tags: { type: "array", items: { type: "string" } }, any: {} },
    required: ["name", "tags"],
  };
  const check = reference.compile(schema);

  it("makes a wrong-type variant and a missing-required variant, both refused by the reference", () => {
    const variants = invalidVariants(schema, { any: 1, name: "x", tags: ["a"] }, check);
    expect(variants.map((v) => [v.kind, v.argument])).toEqual([
      ["wrong_type", "name"],
      ["missing_required", "name"],
    ]);
    for (const v of variants) expect(check(v.args).ok).toBe(false);
    expect(variants[0]!.args.name).not.toBeTypeOf("string");
  });

  it("does not remove a required argument that has a default", () => {
    const s = { type: "object", properties: { a: { type: "string", default: "d" } }, required: ["a"] };
    expect(invalidVariants(s, { a: "x" }, reference.compile(s)).map((v) => v.kind)).toEqual(["wrong_type"]);
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
    expect(plan.notes).toHaveLength(1); // the "two" default on an integer
    const [first, second] = plan.turns;
    expect(first!.map((c) => c.kind)).toEqual(["valid", "breaking"]);
    expect(first![0]).toMatchObject({ toolName: "uber_ride", originalName: "uber.ride", expected: { loc: "here" } });
    expect(second!.map((c) => c.kind)).toEqual(["variant", "variant"]);
  });

  it("refuses to plan a call to a function the case does not offer", () => {
    expect(() => planCase({ id: "t", content: "q", functions: [], groundTruth: [{ f: {} }] }, reference)).toThrow(/does not offer/);
  });

  it("formats the summary line", () => {
    const t = emptyTally();
    t.valid = [2, 3];
    expect(formatTally("bfcl", t)).toBe(
      "bfcl: 2/3 valid calls executed exactly, 0/0 schema-breaking calls refused, 0/0 invalid variants refused, 0/0 irrelevance clean",
    );
  });
});
