/**
 * A request waiting for the thread's running commit (`GroupCommit.batched`) is counted in
 * `InFlight`: a removal that begins meanwhile waits for it, and nothing runs on rows it deleted.
 * Found by a hostile review (the request was counted only once the commit ended).
 */
import { describe, expect, it } from "vitest";
import { GroupCommit, PROBE_EVERY } from "../../src/calls/group-commit.js";
import { InFlight } from "../../src/thread/removal.js";

describe("a batched request and a removal", () => {
  it("a removal waits for a request that waits for a commit; it runs before the rows go", async () => {
    let release!: () => void;
    let n = 0;
    const sync = () => (++n === 1 ? new Promise<void>((r) => (release = r)) : Promise.resolve());
    const commits = new GroupCommit(sync);
    const inFlight = new InFlight();
    // A sync runs now (the probe after PROBE_EVERY lone requests).
    for (let i = 0; i < PROBE_EVERY; i++) await inFlight.runBatched(commits, async () => undefined);
    await new Promise((r) => setTimeout(r, 0));
    expect(commits.syncing).toBe(true);
    const order: string[] = [];
    const request = inFlight.runBatched(commits, async () => void order.push("request ran"));
    const removal = inFlight.remove(async () => {
      await inFlight.drain(async () => undefined, undefined, 60_000);
      order.push("rows deleted");
    });
    await new Promise((r) => setTimeout(r, 20));
    expect(order).toEqual([]);
    release();
    await request;
    await removal;
    expect(order).toEqual(["request ran", "rows deleted"]);
  });
});
