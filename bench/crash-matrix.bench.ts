/**
 * `npm run crash-matrix`: runs every cell of the crash matrix (test/crash/matrix.ts) inside
 * workerd, prints the matrix and the closing line, and fails when any cell is off.
 */
import { expect, it } from "vitest";
import { CLASSES, type CellResult, type EffectClass, POINTS, render, runCell, summary } from "../test/crash/matrix.js";

it("crash matrix", async () => {
  const cells: CellResult[] = [];
  for (const cls of Object.keys(CLASSES) as EffectClass[]) {
    for (const point of POINTS) cells.push(await runCell(cls, point));
  }
  console.log(`\n${render(cells)}\n`);
  for (const c of cells.filter((x) => !x.ok)) console.log(`off: ${c.cls} @ ${c.point}: expected ${c.expected}; ${c.detail}`);
  console.log(summary(cells));
  expect(cells.filter((c) => !c.ok)).toEqual([]);
});
