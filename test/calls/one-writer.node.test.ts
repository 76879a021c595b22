/**
 * One module writes call results: only src/calls/record.ts records a final result or a park and
 * emits `tool_call_finished` / `tool_call_parked`; every other path goes through it.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, sources } from "../sources.node.js";

const WRITES = [/\b(?:journal|calls)\.finish\(/, /\b(?:journal|calls)\.park\(/, /emit\(\s*"tool_call_finished"/, /emit\(\s*"tool_call_parked"/];

describe("call results", () => {
  it("are written by src/calls/record.ts alone", () => {
    const writers = sources("src").filter((f) => {
      const text = readFileSync(path.join(ROOT, f), "utf8");
      return WRITES.some((w) => w.test(text));
    });
    expect(writers).toEqual(["src/calls/record.ts"]);
  });
});
