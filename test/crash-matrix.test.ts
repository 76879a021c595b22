import { describe, expect, it } from "vitest";
import { CLASSES, type EffectClass, POINTS, runCell } from "./crash/matrix.js";

describe("crash matrix: every effect class through every crash point", () => {
  for (const cls of Object.keys(CLASSES) as EffectClass[]) {
    for (const point of POINTS) {
      it(`${cls} @ ${point}`, async () => {
        const cell = await runCell(cls, point);
        const seen = { observed: cell.observed, writeTwice: cell.writeTwice, results: cell.results, toolMessages: cell.toolMessages, turn: cell.turn };
        expect(seen, cell.detail).toEqual({ observed: cell.expected, writeTwice: false, results: 1, toolMessages: 1, turn: "completed, said done" });
        if (cls === "write" || cls === "undeclared") expect(cell.runs).toBeLessThanOrEqual(1);
      });
    }
  }
});
