/**
 * `npm run budget-race`: 50 concurrent turns of one user across 50 threads against a user budget
 * that allows 10 of them, a random share of the admitted requests crashed mid-stream (seeded:
 * BUDGET_RACE_SEED), then the closing line. Fails if the limit was passed, a reservation leaked,
 * or a refused request reached the provider.
 */
import { expect, it } from "vitest";
import { raceLine, runRace } from "./race.js";

const SEED = Number(process.env.BUDGET_RACE_SEED ?? 20261202);

it("budget race", async () => {
  const result = await runRace({ turns: 50, allowed: 10, crashRate: 0.3, seed: SEED });
  console.log(`budget-race: seed ${SEED}, ${result.crashed} requests crashed mid-stream, ${result.answered} answered, ${result.failed} failed after they were sent`);
  console.log(raceLine(result));
  expect(result.used).toBeLessThanOrEqual(result.limit);
  expect(result.leaked).toBe(0);
  expect(result.refusedThatCalled).toBe(0);
});
