import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { pageOf } from "../../src/calls/file-pages.js";
import { WeftError } from "../../src/errors.js";

const utf8 = (text: string) => new TextEncoder().encode(text);
const NOTICE = /\n\[weft: bytes (\d+) to (\d+) of (\d+) of [^\n]*; (?:call read_file with (\{.*\}) for the next page|end of file)\]$/;

/** Every page from `offset` to the end, each checked against the cap; their texts joined. */
function readAll(text: string, cap: number, length?: number, offset = 0): { joined: string; lengths: number[] } {
  let joined = "";
  const lengths: number[] = [];
  for (;;) {
    const page = pageOf(text, "calls/c/result.txt", offset, length, cap);
    expect(utf8(page.text).byteLength).toBeLessThanOrEqual(cap);
    const notice = NOTICE.exec(page.text)!;
    expect(Number(notice[1])).toBe(offset);
    joined += page.text.slice(0, notice.index);
    lengths.push(page.end - page.offset);
    if (page.end === page.size) {
      expect(notice[4]).toBeUndefined();
      return { joined, lengths };
    }
    expect(JSON.parse(notice[4]!)).toEqual({ path: "calls/c/result.txt", offset: page.end });
    offset = page.end;
  }
}

function refusal(fn: () => unknown): [string, unknown] {
  try {
    fn();
  } catch (e) {
    if (e instanceof WeftError) return [e.code, e.details?.path];
    throw e;
  }
  throw new Error("no error");
}

describe("pageOf: read_file's pages", () => {
  it("pages of any text, at any cap and length, join to the exact text and each fits under the cap", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 400 }), fc.integer({ min: 160, max: 300 }), fc.option(fc.integer({ min: 4, max: 200 }), { nil: undefined }), (text, cap, length) => {
        const { joined } = readAll(text, cap, length);
        expect(utf8(joined)).toEqual(utf8(text));
      }),
      { numRuns: 300 },
    );
  });

  it("moves a page's end back to a character's start instead of splitting it", () => {
    // "😀" is 4 bytes: pages of at most 6 bytes hold one emoji each, never one and a half.
    const { joined, lengths } = readAll("😀😀😀", 4096, 6);
    expect(joined).toBe("😀😀😀");
    expect(lengths).toEqual([4, 4, 4]);
  });

  it("refuses an offset past the end or inside a character, and a length too short for one character", () => {
    expect(refusal(() => pageOf("abc", "p", 4, undefined, 4096))).toEqual(["invalid_tool_input", ["offset"]]);
    expect(refusal(() => pageOf("é", "p", 1, undefined, 4096))).toEqual(["invalid_tool_input", ["offset"]]);
    expect(refusal(() => pageOf("€", "p", 0, 2, 4096))).toEqual(["invalid_tool_input", ["length"]]);
    expect(refusal(() => pageOf("abc", "p", 0, undefined, 20))).toEqual(["invalid_config", ["WEFT_RESULT_CAP_BYTES"]]);
    // At the very end: an empty page that says the file ended.
    expect(pageOf("abc", "p", 3, undefined, 4096).text).toBe("\n[weft: bytes 3 to 3 of 3 of p; end of file]");
  });
});
