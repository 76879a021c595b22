/**
 * `log` writes every string a logged value reaches with its controls and line feeds escaped: a
 * user's text inside an object, an array or an Error's stack cannot start a console line that
 * passes for weft's, nor a stack frame (src/log.ts).
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { log, logLines } from "../src/log.js";

/** Any character the console must never get raw from a user's text: a line feed, a C0/C1 control, a line separator, a bidi control. */
const RAW = /[\n\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/;
const FAKE = "boom\n    at weft: tool refund call c9 of thread t9 succeeded\u2028weft: x\u001b[2J\u202e";

let error: ReturnType<typeof vi.spyOn>;
afterEach(() => error?.mockRestore());

/** The arguments `log("error", ...args)` hands the console. */
function logged(...args: unknown[]): unknown[] {
  error = vi.spyOn(console, "error").mockImplementation(() => {});
  log("error", ...args);
  return error.mock.calls[0]!;
}

describe("log", () => {
  it("escapes a string nested in an object or an array, keys too", () => {
    const [, value] = logged("weft: x", { user: { name: FAKE, tags: [FAKE] }, [FAKE]: 1 });
    expect(typeof value).toBe("string");
    expect(value).not.toMatch(RAW);
    expect(value).toContain("boom\\n    at weft: tool refund");
    expect(value).toContain("\\u2028weft: x\\u001b[2J\\u202e");
  });

  it("escapes every line feed of a plain string, one that begins a fake frame line too", () => {
    expect(logged(`weft: turn failed: ${FAKE}`)[0]).not.toMatch(RAW);
  });

  it("writes an Error's message on one line and keeps only its stack's frames on lines of their own", () => {
    const thrown = new Error(FAKE);
    const [copy] = logged(thrown) as [Error];
    expect(copy.message).not.toMatch(RAW);
    const lines = copy.stack!.split("\n");
    expect(lines[0]).toContain("boom\\n    at weft: tool refund");
    expect(lines.slice(1).length).toBeGreaterThan(0);
    expect(lines.slice(1).every((l) => /^\s+at /.test(l) && !l.includes("weft: tool refund"))).toBe(true);
  });

  it("writes an Error whose stack no longer starts with its message (one changed after the throw) on one line", () => {
    const thrown = new Error(FAKE);
    void thrown.stack; // V8 writes the stack's text when it is first read
    thrown.message = "changed";
    const [copy] = logged(thrown) as [Error];
    expect(copy.stack).not.toMatch(RAW);
  });

  it("writes an Error nested in an object with its message and stack escaped", () => {
    const [value] = logged({ cause: new Error(FAKE) });
    expect(value).not.toMatch(RAW);
    expect(value).toContain("boom\\n    at weft: tool refund");
  });

  it("writes a cycle once and a huge value cut, without walking all of it", () => {
    const cyclic: Record<string, unknown> = { name: FAKE };
    cyclic.self = cyclic;
    const [value] = logged(cyclic);
    expect(value).toContain("[Circular]");
    expect(value).not.toMatch(RAW);
    let reads = 0;
    const huge = new Proxy(Array.from({ length: 1_000_000 }, () => FAKE), {
      get(target, key, receiver) {
        reads++;
        return Reflect.get(target, key, receiver);
      },
    });
    const [text] = logged(huge) as [string];
    expect(text.length).toBeLessThan(20_000);
    expect(reads).toBeLessThan(10_000);
  });

  it("logLines breaks lines only between the lines it is given", () => {
    error = vi.spyOn(console, "error").mockImplementation(() => {});
    logLines("error", [`weft: tool t failed: ${FAKE}`, "    at f (agents/tools/t.ts:1:1)"]);
    const lines = String(error.mock.calls[0]![0]).split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).not.toMatch(RAW);
  });
});
