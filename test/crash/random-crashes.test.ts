/**
 * A small seeded random crash run in the suite (`npm run crash-matrix` plays 1000 crashes): random
 * effect mixes and callers, crashed at random points, recovered by their own alarms.
 */
import { expect, it } from "vitest";
import { randomSummary, runRandom } from "./random.js";

it("survives 60 random crashes with no write run twice and one result per call", async () => {
  // The budget bounds a run that stalls, not its speed: 90 s was spent beside a second npm test.
  const result = await runRandom({ seed: 7, targetCrashes: 60, concurrency: 4, budgetMs: 360_000 });
  expect(result.problems).toEqual([]);
  expect(result.outOfTime).toBe(false);
  expect(randomSummary(result)).toBe("random: 60 crashes, 0 writes run twice, 0 calls without exactly one result");
}, 420_000);
