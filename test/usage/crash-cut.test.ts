/**
 * A request cut by a crash reached the provider (it was streaming), so its reservation is charged
 * when the restarted thread reserves again, not released as if it had cost nothing: otherwise the
 * budget admits `allowed` more requests on top of every crashed one, and the provider serves (and
 * bills) more than the ceiling (a hostile review saw 12 requests reach the provider under a
 * budget for 10, and `used` equal to the limit since the cut ones were not counted).
 */
import { describe, expect, it } from "vitest";
import { runRace } from "./race.js";

describe("crash-cut requests and the ceiling", () => {
  it("never lets more requests reach the provider than the budget admits, and counts the cut ones in used", async () => {
    const r = await runRace({ turns: 4, allowed: 2, crashRate: 1, seed: 7 });
    expect(r.crashed).toBeGreaterThan(0);
    // Every request that reached the provider: answered, failed after being sent, or cut by a crash.
    expect(r.reached).toBe(r.answered + r.failed + r.crashed);
    expect(r.reached).toBeLessThanOrEqual(2);
    // Each cut request is charged its reservation (an answered one reports exactly its reservation).
    expect(r.used).toBeGreaterThanOrEqual(r.crashed * r.reserve);
    expect(r.used).toBeLessThanOrEqual(r.limit);
    expect(r.leaked).toBe(0);
  }, 180_000);
});
