/**
 * What one isolate keeps of users' remote tool lists (src/remote/kept-listings.ts): bounded in
 * bytes over all users as well as in users, the users listed longest ago dropped first.
 */
import { describe, expect, it } from "vitest";
import { KEPT_USERS, MAX_KEPT_LISTING_BYTES, MAX_OWN_KEPT_LISTING_BYTES, keepWithin } from "../../src/remote/kept-listings.js";

const bytes = (n: number) => n;

describe("the lists one isolate keeps", () => {
  it("drops the users listed longest ago once their lists together pass the byte bound", () => {
    const kept = new Map<string, number>();
    keepWithin(kept, "a", 40, bytes, 100);
    keepWithin(kept, "b", 40, bytes, 100);
    // a is listed again: now b is the oldest.
    keepWithin(kept, "a", 40, bytes, 100);
    keepWithin(kept, "c", 40, bytes, 100);
    expect([...kept.keys()]).toEqual(["a", "c"]);
    expect([...kept.values()].reduce((x, y) => x + y, 0)).toBeLessThanOrEqual(100);
  });

  it("keeps no user whose lists alone pass the bound, and drops no one for them", () => {
    const kept = new Map<string, number>([["a", 10]]);
    keepWithin(kept, "huge", 500, bytes, 100);
    expect([...kept.keys()]).toEqual(["a"]);
  });

  it("still holds at most the users' bound", () => {
    const kept = new Map<string, number>();
    for (let i = 0; i < KEPT_USERS + 10; i++) keepWithin(kept, `u${i}`, 1, bytes);
    expect(kept.size).toBe(KEPT_USERS);
    expect(kept.has("u0")).toBe(false);
    expect(kept.has(`u${KEPT_USERS + 9}`)).toBe(true);
  });

  it("keeps no user whose own servers' lists pass their share, and drops no one for them: one user's lists just under the whole bound dropped every other user at each of their requests (hostile review)", () => {
    type Lists = { declared: number; own: number };
    const all = (l: Lists) => l.declared + l.own;
    const own = (l: Lists) => l.own;
    const kept = new Map<string, Lists>();
    for (const user of ["alice", "bob", "carol"]) keepWithin(kept, user, { declared: 100_000, own: 50_000 }, all, MAX_KEPT_LISTING_BYTES, KEPT_USERS, own);
    const hostile = { declared: 100_000, own: MAX_KEPT_LISTING_BYTES - 200_000 };
    const dropped = keepWithin(kept, "hostile", hostile, all, MAX_KEPT_LISTING_BYTES, KEPT_USERS, own);
    expect(dropped).toEqual([hostile]);
    expect([...kept.keys()]).toEqual(["alice", "bob", "carol"]);
    // Within its share a user is kept as before; the deployment's declared lists are no user's share.
    expect(keepWithin(kept, "dave", { declared: 6_000_000, own: MAX_OWN_KEPT_LISTING_BYTES }, all, MAX_KEPT_LISTING_BYTES, KEPT_USERS, own)).toEqual([]);
    expect(kept.has("dave")).toBe(true);
  });

  it("bounds an isolate's lists to a known amount", () => {
    expect(MAX_KEPT_LISTING_BYTES).toBe(16 * 1024 * 1024);
    expect(MAX_OWN_KEPT_LISTING_BYTES).toBe(4 * 1024 * 1024);
  });
});
