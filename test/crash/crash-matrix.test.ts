/**
 * The crash matrix as tests: each cell (effect class x crash point x caller) recovers by its own
 * alarm to exactly what the specification in test/crash/matrix.ts says, judged by raw counts.
 * npm test plays the pairwise sample (every class at every point, every point and every class by
 * every caller); `npm run crash-matrix` plays every cell, then 1000 random crashes.
 */
import { describe, expect, it } from "vitest";
import { pairwiseCells, runCell } from "./matrix.js";

describe("crash matrix: every effect class at every crash point, each pair with every caller", () => {
  for (const { cls, point, source } of pairwiseCells()) {
    it(`${source} ${cls} @ ${point}`, async () => {
      const cell = await runCell(cls, point, source);
      expect({ ok: cell.ok, writeTwice: cell.writeTwice, callsWithoutOneResult: cell.callsWithoutOneResult }, cell.detail).toEqual({
        ok: true,
        writeTwice: false,
        callsWithoutOneResult: 0,
      });
    }, 120_000);
  }
});
