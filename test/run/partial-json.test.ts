import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { JsonArgumentStream, safeStringPrefix } from "../../src/run/partial-json.js";

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** JSON text with every non-ASCII character written as \u escapes, the way some providers stream. */
const asciiJson = (value: unknown) => JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);

describe("JsonArgumentStream", () => {
  it("reports top-level members as they finish, whatever the chunking", () => {
    const text = '{"query": "a,b}", "n": 12, "tags": ["x", {"y": 1}], "ok": true}';
    for (const size of [1, 2, 3, 7, text.length]) {
      const stream = new JsonArgumentStream();
      const done: string[] = [];
      for (let i = 0; i < text.length; i += size) done.push(...stream.push(text.slice(i, i + size)).map((m) => m.key));
      expect(done).toEqual(["query", "n", "tags", "ok"]);
      expect(stream.preview()).toEqual(JSON.parse(text));
    }
  });

  it("a number is finished only by what follows it", () => {
    const stream = new JsonArgumentStream();
    expect(stream.push('{"n":12')).toEqual([]);
    expect(stream.preview()).toEqual({});
    expect(stream.push("3,")).toEqual([{ key: "n", raw: "123" }]);
  });

  it("previews are whole characters and prefixes of the final values, for any chunking (property)", () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), fc.oneof(fc.string({ unit: "binary" }), fc.integer(), fc.boolean()), { maxKeys: 4 }),
        fc.boolean(),
        fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 20 }),
        (value, ascii, sizes) => {
          const text = ascii ? asciiJson(value) : JSON.stringify(value);
          const stream = new JsonArgumentStream();
          let i = 0;
          for (let k = 0; i < text.length; k++) {
            const size = sizes[k % sizes.length]!;
            stream.push(text.slice(i, i + size));
            i += size;
            const preview = stream.preview() ?? {};
            for (const [key, v] of Object.entries(preview)) {
              if (typeof v !== "string") {
                expect(v).toEqual(value[key]);
                continue;
              }
              expect(LONE_SURROGATE.test(v)).toBe(false);
              expect(String(value[key]).startsWith(v)).toBe(true);
            }
          }
          expect(stream.preview()).toEqual(JSON.parse(text));
          expect(stream.raw).toBe(text);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("safeStringPrefix", () => {
  it("leaves out an unfinished escape and a high surrogate waiting for its pair", () => {
    expect(safeStringPrefix("caf\\u00")).toBe("caf");
    expect(safeStringPrefix("a\\")).toBe("a");
    expect(safeStringPrefix("a\\\\")).toBe("a\\");
    expect(safeStringPrefix("x\\ud83d")).toBe("x");
    expect(safeStringPrefix("x\\ud83d\\ude00")).toBe("x😀");
    expect(safeStringPrefix("x\ud83d")).toBe("x");
  });
});
