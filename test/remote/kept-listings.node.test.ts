/**
 * What one isolate keeps of users' remote tool lists (src/remote/kept-listings.ts): bounded in
 * bytes over all users as well as in users, the users listed longest ago dropped first.
 */
import { describe, expect, it } from "vitest";
import { KEPT_USERS, MAX_KEPT_LISTING_BYTES, keepWithin } from "../../src/remote/kept-listings.js";

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

  it("bounds an isolate's lists to a known amount", () => {
    expect(MAX_KEPT_LISTING_BYTES).toBe(16 * 1024 * 1024);
  });
});
