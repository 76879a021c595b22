import { describe, expect, it } from "vitest";
import { z } from "zod";
import { fromStrictArguments, strictSchema } from "../../src/models/strict.js";

const schema = z.toJSONSchema(z.object({ query: z.string(), limit: z.number().default(10), tag: z.string().optional() }), { io: "input" }) as Record<string, unknown>;

describe("strict schemas", () => {
  it("leaves a schema with a free-form object to go as written (null), however deep the object sits", () => {
    const free = [
      { type: "object", properties: { labels: { type: "object", additionalProperties: { type: "string" } } } },
      { type: "object", properties: { meta: { type: "object" } } },
      { type: "object", properties: { rows: { type: "array", items: { type: "object", patternProperties: { "^x": { type: "number" } } } } } },
      { type: "object", properties: { pick: { anyOf: [{ type: "string" }, { $ref: "#/$defs/Bag" }] } }, $defs: { Bag: { type: "object", additionalProperties: true } } },
      z.toJSONSchema(z.object({ labels: z.record(z.string(), z.string()) }), { io: "input" }),
    ];
    for (const s of free) expect(strictSchema(s as Record<string, unknown>), JSON.stringify(s)).toBeNull();
    // Its arguments are the model's, untouched: a null stays a null.
    expect(fromStrictArguments(free[1] as Record<string, unknown>, '{"meta":null}')).toBe('{"meta":null}');
    // Closed objects, with or without additionalProperties: false, are made strict.
    expect(strictSchema({ type: "object", properties: { a: { type: "object", properties: { b: { type: "string" } } } } })).not.toBeNull();
  });

  it("makes every key required, optional keys nullable, and moves refused keywords into the description", () => {
    const strict = strictSchema(schema)!.schema;
    expect(strict).toEqual({
      type: "object",
      properties: {
        query: { type: "string" },
        limit: { type: ["number", "null"], description: "(default: 10)" },
        tag: { type: ["string", "null"] },
      },
      required: ["query", "limit", "tag"],
      additionalProperties: false,
    });
    expect(schema.required).toEqual(["query"]);
  });

  it("maps null back to absent only for keys that were optional, so defaults apply", () => {
    const args = fromStrictArguments(schema, '{"query":"x","limit":null,"tag":null}');
    expect(JSON.parse(args)).toEqual({ query: "x" });
    expect(z.object({ query: z.string(), limit: z.number().default(10), tag: z.string().optional() }).parse(JSON.parse(args))).toEqual({ query: "x", limit: 10 });
    // A required key's null stays (and fails validation as it should); text that needs no change is kept byte for byte.
    expect(fromStrictArguments(schema, '{"query":null}')).toBe('{"query":null}');
    expect(fromStrictArguments(schema, '{ "query": "x" }')).toBe('{ "query": "x" }');
    expect(fromStrictArguments(schema, "{not json")).toBe("{not json");
  });

  it("keeps null where the author's schema accepts it, and recurses into nested objects and arrays", () => {
    const nested = {
      type: "object",
      properties: {
        note: { type: ["string", "null"] },
        items: { type: "array", items: { type: "object", properties: { a: { type: "string" }, b: { type: "integer", minimum: 0 } }, required: ["a"] } },
        pick: { oneOf: [{ type: "string" }, { type: "number" }] },
      },
    };
    const strict = strictSchema(nested)!.schema as any;
    expect(strict.properties.note).toEqual({ type: ["string", "null"] });
    expect(strict.properties.items.type).toEqual(["array", "null"]);
    expect(strict.properties.items.items).toMatchObject({ required: ["a", "b"], additionalProperties: false, properties: { b: { type: ["integer", "null"], minimum: 0 } } });
    expect(strict.properties.pick).toEqual({ anyOf: [{ type: "string" }, { type: "number" }, { type: "null" }] });
    expect(JSON.parse(fromStrictArguments(nested, '{"note":null,"items":[{"a":"x","b":null}],"pick":null}'))).toEqual({ note: null, items: [{ a: "x" }] });
  });

  it("reads only the arguments' own keys: a property named __proto__ the model left out touches nothing shared", () => {
    // As a definition read from JSON gives it: "__proto__" an own key of each `properties`.
    const proto = JSON.parse('{"type":"object","properties":{"__proto__":{"type":"object","properties":{"__proto__":{"type":"string"}}}}}');
    const accessor = Object.getOwnPropertyDescriptor(Object.prototype, "__proto__")!;
    try {
      expect(fromStrictArguments(proto, "{}")).toBe("{}");
      expect(Object.getOwnPropertyDescriptor(Object.prototype, "__proto__")).toEqual(accessor);
    } finally {
      if (!Object.getOwnPropertyDescriptor(Object.prototype, "__proto__")) Object.defineProperty(Object.prototype, "__proto__", accessor);
    }
  });
});
