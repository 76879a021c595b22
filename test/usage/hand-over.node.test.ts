/**
 * The first `PUT /account/budgets` tells every watcher thread, one call each: in bounded batches
 * and at most a bounded number per request, so a user with more threads than the subrequest limit
 * (1000 on Cloudflare) is told over retries that each make progress, not failed on every retry
 * (hostile review: one Promise.all over every listed thread).
 */
import { describe, expect, it } from "vitest";
import { isWeftError } from "../../src/errors.js";
import { HAND_OVER_BATCH, HAND_OVER_PER_CALL, handOverWatchers } from "../../src/usage/hand-over.js";
import type { ReserveRequest } from "../../src/usage/reservations.js";

function account(ids: string[]) {
  const list = new Set(ids);
  let inFlight = 0;
  let most = 0;
  let calls = 0;
  return {
    list,
    stats: () => ({ most, calls }),
    host: {
      async tell(id: string): Promise<ReserveRequest[]> {
        calls++;
        most = Math.max(most, ++inFlight);
        await new Promise((r) => setTimeout(r, 1));
        inFlight--;
        return [];
      },
      record(told: readonly string[]) {
        for (const id of told) list.delete(id);
      },
    },
  };
}

describe("handing over to watcher threads", () => {
  it("tells at most a batch at a time and a bounded number per request; retries finish the list", async () => {
    expect(HAND_OVER_PER_CALL).toBeLessThan(1000);
    const a = account(Array.from({ length: 2100 }, (_, i) => `t${i}`));
    let attempts = 0;
    for (;;) {
      attempts++;
      const before = a.stats().calls;
      try {
        await handOverWatchers([...a.list], a.host);
        break;
      } catch (e) {
        if (!isWeftError(e) || e.code !== "internal_error") throw e;
      }
      expect(a.stats().calls - before).toBeLessThanOrEqual(HAND_OVER_PER_CALL);
      if (attempts > 5) throw new Error("no progress");
    }
    expect(attempts).toBe(Math.ceil(2100 / HAND_OVER_PER_CALL));
    expect(a.list.size).toBe(0);
    expect(a.stats().most).toBeLessThanOrEqual(HAND_OVER_BATCH);
    expect(a.stats().calls).toBe(2100);
  });

  it("a watcher that cannot be reached fails the request; every watcher that answered, in its batch too, stays recorded", async () => {
    const a = account(Array.from({ length: 120 }, (_, i) => `t${i}`));
    const host = { ...a.host, tell: (id: string) => (id === "t70" ? Promise.reject(new Error("gone")) : a.host.tell(id)) };
    await expect(handOverWatchers([...a.list], host, { batch: 50, perCall: 800 })).rejects.toMatchObject({ code: "internal_error", details: { threadId: "t70" } });
    // Left: the one out of reach and the batch after its batch.
    expect([...a.list]).toEqual(["t70", ...Array.from({ length: 20 }, (_, i) => `t${100 + i}`)]);
  });
});
