/**
 * `npm run budget-race`: 50 concurrent turns of one user across 50 threads against a user budget
 * that allows 10 of them, a random share of the admitted requests crashed mid-stream (seeded:
 * BUDGET_RACE_SEED), then a line of the requests the provider saw and the closing line. Fails if
 * the limit was passed (by what the account counts, or by what the provider saw), a reservation
 * leaked, or a refused request reached the provider.
 */
import { expect, it } from "vitest";
import { raceLine, reachedLine, runRace } from "./race.js";

const SEED = Number(process.env.BUDGET_RACE_SEED ?? 20261202);

it("budget race", async () => {
  const result = await runRace({ turns: 50, allowed: 10, crashRate: 0.3, seed: SEED });
  console.log(`budget-race: seed ${SEED}, ${result.crashed} requests crashed mid-stream, ${result.answered} answered, ${result.failed} failed after they were sent`);
  console.log(reachedLine(result));
  console.log(raceLine(result));
  expect(result.used).toBeLessThanOrEqual(result.limit);
  // Held against the provider too: every request that reached it (a cut one included) is in `used`.
  expect((result.answered + result.crashed) * result.reserve).toBeLessThanOrEqual(result.limit);
  expect(result.billedInput).toBeLessThanOrEqual(result.limit);
  expect(result.leaked).toBe(0);
  expect(result.refusedThatCalled).toBe(0);
});
