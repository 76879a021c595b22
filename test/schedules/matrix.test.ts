import { describe, expect, it } from "vitest";
import { dstSection, matrixLine, runMatrix } from "./matrix.js";

describe("the schedule matrix, small (npm run schedule-matrix runs it full)", () => {
  it("random crashes, downtime, second deliveries and cancels: nothing runs twice, nothing is missed beyond policy, nothing fires after cancel", async () => {
    const r = await runMatrix({ seed: 7, threads: 1, schedulesPerThread: 6, stepsPerThread: 14, crashRate: 0.9, downtimeRate: 0.2, cancelRate: 0.1, repeatRate: 0.3 });
    expect(r.problems).toEqual([]);
    expect(r.crashes).toBeGreaterThan(5);
    expect(r.occurrences).toBeGreaterThan(40);
    expect(matrixLine(r)).toMatch(/ 0 run twice, 0 missed beyond policy, 0 fired after cancel$/);
  });

  it("DST: every night-time daily cron runs once on each zone's spring-forward and fall-back day", () => {
    const { lines, problems } = dstSection();
    expect(problems).toEqual([]);
    expect(lines.length).toBe(6);
  });
});
