/**
 * The crash matrix as tests: every cell (effect class x crash point x caller) recovers by its own
 * alarm to exactly what the specification in test/crash/matrix.ts says, judged by raw counts.
 */
import { describe, expect, it } from "vitest";
import { cells, runCell } from "./crash/matrix.js";

describe("crash matrix: every effect class, caller and crash point", () => {
  for (const { cls, point, source } of cells()) {
    it(`${source} ${cls} @ ${point}`, async () => {
      const cell = await runCell(cls, point, source);
      expect({ ok: cell.ok, writeTwice: cell.writeTwice, callsWithoutOneResult: cell.callsWithoutOneResult }, cell.detail).toEqual({
        ok: true,
        writeTwice: false,
        callsWithoutOneResult: 0,
      });
    }, 30_000);
  }
});
