/**
 * Requests batched on the thread's commits (`GroupCommit.batched`): a request that finds no sync
 * running runs at once; requests that arrive while one runs wait for its end and then run
 * together, in that one step, so their writes share one commit, and a sync follows them and every
 * request for a while, so the next ones batch too; requests that come one at a time start a sync only as a probe; a failed
 * request or a failed sync holds up nothing.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { BATCHING_MS, GroupCommit, PROBE_EVERY } from "../../src/calls/group-commit.js";

/** A sync that resolves (or fails) only when the test says so; `log` records starts and ends. */
function manualSync() {
  const pending: Array<{ resolve: () => void; reject: (e: Error) => void }> = [];
  const log: string[] = [];
  let n = 0;
  const sync = () => {
    const id = ++n;
    log.push(`sync ${id}`);
    return new Promise<void>((resolve, reject) => pending.push({ resolve: () => (log.push(`end ${id}`), resolve()), reject }));
  };
  return { sync, log, finishOne: () => pending.shift()?.resolve(), failOne: () => pending.shift()?.reject(new Error("commit failed")) };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe("requests batched on the thread's commits", () => {
  afterEach(() => void vi.useRealTimers());

  it("requests one at a time run at once; only every PROBE_EVERY-th starts a sync after it (a probe)", async () => {
    const m = manualSync();
    const commits = new GroupCommit(m.sync);
    for (let i = 1; i < PROBE_EVERY; i++) {
      expect(await commits.batched(async () => (m.log.push(`work ${i}`), i))).toBe(i);
      await tick();
    }
    expect(m.log.filter((l) => l.startsWith("sync"))).toEqual([]);
    await commits.batched(async () => void m.log.push("probe"));
    await tick();
    expect(m.log.slice(-2)).toEqual(["probe", "sync 1"]);
    expect([commits.syncs, commits.trackingSyncs]).toEqual([0, 1]);
  });

  /** A GroupCommit whose probe sync (sync 1) runs now. */
  async function probing(m: ReturnType<typeof manualSync>): Promise<GroupCommit> {
    const commits = new GroupCommit(m.sync);
    for (let i = 0; i < PROBE_EVERY; i++) await commits.batched(async () => undefined);
    await tick();
    expect(m.log).toEqual(["sync 1"]);
    return commits;
  }

  it("requests that arrive while a commit is unconfirmed run together once it ends, and one sync follows them; so do the next for BATCHING_MS", async () => {
    // The window's clock moves only when the test moves it: a loaded machine took longer than
    // BATCHING_MS between the contended request and the count below (CI saw 0 of 20).
    vi.useFakeTimers({ toFake: ["Date"] });
    const m = manualSync();
    const commits = await probing(m);
    const later = ["b", "c", "d"].map((k) => commits.batched(async () => (m.log.push(`work ${k}`), k)));
    await tick();
    // Nothing of theirs ran while sync 1 was unconfirmed.
    expect(m.log).toEqual(["sync 1"]);
    m.finishOne();
    expect(await Promise.all(later)).toEqual(["b", "c", "d"]);
    await tick();
    // All three in the step where sync 1 ended, then one sync for them all.
    expect(m.log).toEqual(["sync 1", "end 1", "work b", "work c", "work d", "sync 2"]);
    // Neither was asked for by a flush: nothing waited on them.
    expect([commits.syncs, commits.trackingSyncs]).toEqual([0, 2]);
    // For BATCHING_MS after a request came while a sync ran, every request starts a sync after
    // its work, alone or not; then only probes do.
    const syncsAfter = async (n: number) => {
      const before = commits.trackingSyncs;
      for (let i = 0; i < n; i++) {
        m.finishOne();
        await tick();
        await commits.batched(async () => undefined);
        await tick();
      }
      return commits.trackingSyncs - before;
    };
    expect(await syncsAfter(20)).toBe(20);
    vi.setSystemTime(Date.now() + BATCHING_MS + 1);
    expect(await syncsAfter(PROBE_EVERY * 2)).toBe(2);
  });

  it("a request that fails still counts; one after a failed sync runs, and a sync follows it", async () => {
    const m = manualSync();
    const commits = new GroupCommit(m.sync);
    for (let i = 1; i < PROBE_EVERY; i++) await commits.batched(async () => undefined);
    await expect(commits.batched(async () => Promise.reject(new Error("refused")))).rejects.toThrow("refused");
    await tick();
    expect(m.log).toEqual(["sync 1"]);
    const next = commits.batched(async () => "after");
    m.failOne();
    expect(await next).toBe("after");
    await tick();
    expect(m.log).toEqual(["sync 1", "sync 2"]);
  });

  it("a journal flush asked meanwhile is still answered only by a sync that started after it", async () => {
    const m = manualSync();
    const commits = await probing(m);
    let flushed = false;
    const flush = commits.flush().then(() => (flushed = true));
    const request = commits.batched(async () => "b");
    m.finishOne();
    expect(await request).toBe("b");
    await tick();
    // Sync 2 started for the flush when sync 1 ended; the request ran in that step and started none.
    expect(m.log).toEqual(["sync 1", "end 1", "sync 2"]);
    expect([commits.syncs, commits.trackingSyncs]).toEqual([1, 1]);
    expect(flushed).toBe(false);
    m.finishOne();
    await flush;
    expect(flushed).toBe(true);
  });
});
