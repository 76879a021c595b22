/**
 * `npm run schedule-matrix`: the schedule matrix (test/schedules/matrix.ts) until at least 10,000
 * occurrences have run and 1,000 random crashes have cut them, then the DST section in three
 * zones. Prints both and the closing line; seeded (`SCHEDULE_SEED`), so a failure replays.
 */
import { expect, it } from "vitest";
import { dstSection, matrixLine, runMatrix } from "../test/schedules/matrix.js";

const SEED = Number(process.env.SCHEDULE_SEED ?? 20261202);

it("schedule matrix", async () => {
  const dst = dstSection();
  for (const line of dst.lines) console.log(line);
  for (const p of dst.problems) console.log(`off: ${p}`);
  const r = await runMatrix({
    seed: SEED,
    threads: 60,
    schedulesPerThread: 12,
    stepsPerThread: 80,
    crashRate: 0.95,
    downtimeRate: 0.05,
    cancelRate: 0.02,
    repeatRate: 0.2,
    target: { crashes: 1000, occurrences: 10_000 },
    progress: (soFar, threads) => console.log(`schedule-matrix: ${threads} threads, ${soFar.occurrences} occurrences, ${soFar.crashes} crashes so far`),
  });
  for (const p of r.problems) console.log(`off: ${p}`);
  console.log(`schedule-matrix: seed ${SEED}`);
  console.log(matrixLine(r));
  expect(dst.problems).toEqual([]);
  expect(r.problems).toEqual([]);
  expect([r.runTwice, r.missedBeyondPolicy, r.firedAfterCancel]).toEqual([0, 0, 0]);
  expect(r.crashes).toBeGreaterThanOrEqual(1000);
  expect(r.occurrences).toBeGreaterThanOrEqual(10_000);
}, 1_800_000);
