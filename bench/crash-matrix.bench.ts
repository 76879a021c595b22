/**
 * `npm run crash-matrix`: every cell of the crash matrix (test/crash/matrix.ts), then 1000 crashes
 * at random points over random mixes of effect classes (test/crash/random.ts, seeded), inside
 * workerd. Prints the tables, every cell or thread that is off, and the closing line.
 */
import { expect, it } from "vitest";
import { type CellResult, cells, render, runCell, summary } from "../test/crash/matrix.js";
import { randomSummary, runRandom } from "../test/crash/random.js";

const SEED = Number(process.env.CRASH_SEED ?? 20261130);

it("crash matrix", async () => {
  const results: CellResult[] = [];
  for (const { cls, point, source } of cells()) results.push(await runCell(cls, point, source));
  console.log(`\n${render(results)}`);
  for (const c of results.filter((x) => !x.ok)) console.log(`off: ${c.source} ${c.cls} @ ${c.point}: expected ${c.expected}; ${c.detail}`);
  const random = await runRandom({ seed: SEED, targetCrashes: 1000, concurrency: 8, budgetMs: 420_000 });
  for (const p of random.problems) console.log(`off: ${p}`);
  if (random.outOfTime) console.log(`random: time budget spent after ${random.threads} threads`);
  console.log(`random: seed ${SEED}, ${random.threads} threads`);
  console.log(`${summary(results)}; ${randomSummary(random)}`);
  expect(results.filter((c) => !c.ok)).toEqual([]);
  expect(random.problems).toEqual([]);
  expect(random.crashes).toBe(1000);
});
