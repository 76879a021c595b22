import { describe, expect, it } from "vitest";
import * as z from "zod";
import { defineTool } from "../../src/index.js";
import { compileTool } from "../../src/tools/catalog.js";
import { argsHashOf } from "../../src/calls/input.js";

const tool = (args: z.ZodObject) => defineTool({ description: "t", args, effect: "read", execute: async () => ({ status: "success" as const, result: "ok" }) });

describe("schema types without a JSON form", () => {
  it.each([
    ["z.date()", z.object({ when: z.date() }), "when", "z.iso.datetime()"],
    ["z.bigint()", z.object({ n: z.bigint() }), "n", "z.coerce.bigint()"],
    ["z.map()", z.object({ deep: z.object({ m: z.map(z.string(), z.string()) }) }), "deep.m", "z.record("],
    ["z.set()", z.object({ tags: z.set(z.string()) }), "tags", "z.array("],
    ["z.date() in an array", z.object({ days: z.array(z.date()) }), "days[]", "z.iso.datetime()"],
  ])("%s is refused at build, naming the field and the JSON-friendly alternative", (_label, args, field, alternative) => {
    let thrown: unknown;
    try {
      compileTool("t", tool(args));
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toMatchObject({ code: "invalid_config" });
    expect((thrown as Error).message).toContain(`args field "${field}"`);
    expect((thrown as Error).message).toContain(alternative);
  });

  it("advertises z.coerce.date() as a date-time string, never {}", () => {
    const compiled = compileTool("t", tool(z.object({ when: z.coerce.date(), n: z.coerce.bigint() })));
    expect(compiled.inputSchema.properties).toEqual({ when: { type: "string", format: "date-time" }, n: { type: "integer" } });
  });
});

describe("argsHash is keyed over the canonical JSON of the validated input as sent on the wire", () => {
  it("distinct dates never share a hash; equal values in any key order do; another key gives another hash", async () => {
    const hash = (input: unknown, key = "k") => argsHashOf(input, key);
    const a = await hash({ when: new Date("2024-01-01T00:00:00Z") });
    const b = await hash({ when: new Date("2025-01-01T00:00:00Z") });
    expect(a).not.toBe(b);
    expect(a).toBe(await hash({ when: "2024-01-01T00:00:00.000Z" }));
    expect(await hash({ x: 1, y: { b: 2, a: 1 } })).toBe(await hash({ y: { a: 1, b: 2 }, x: 1 }));
    expect(await hash({ n: 12n })).not.toBe(await hash({ n: 13n }));
    expect(await hash({ x: 1 }, "other")).not.toBe(await hash({ x: 1 }));
  });
});
