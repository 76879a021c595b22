/**
 * Group commit: concurrent flushes share syncs, and none is answered by a sync that started
 * before it asked (the journal-first promise).
 */
import { describe, expect, it } from "vitest";
import { GroupCommit } from "../src/thread/group-commit.js";
import { createThread, inThread, json } from "./helpers.js";

/** A sync that resolves only when the test says so; `log` records when each started and ended. */
function manualSync() {
  const pending: Array<() => void> = [];
  const log: string[] = [];
  let n = 0;
  const sync = () => {
    const id = ++n;
    log.push(`start ${id}`);
    return new Promise<void>((resolve) => pending.push(() => (log.push(`end ${id}`), resolve())));
  };
  return { sync, log, finishOne: () => pending.shift()?.() };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe("group commit", () => {
  it("a lone flush starts a sync at once; flushes asked during it share the next one", async () => {
    const m = manualSync();
    const commits = new GroupCommit(m.sync);
    const answered: string[] = [];
    const first = commits.flush().then(() => answered.push("first"));
    expect(m.log).toEqual(["start 1"]);
    const waiting = [1, 2, 3].map((i) => commits.flush().then(() => answered.push(`later ${i}`)));
    await tick();
    // None of the later ones may ride on sync 1: it started before they asked.
    expect(m.log).toEqual(["start 1"]);
    m.finishOne();
    await first;
    await tick();
    expect(answered).toEqual(["first"]);
    expect(m.log).toEqual(["start 1", "end 1", "start 2"]);
    m.finishOne();
    await Promise.all(waiting);
    expect(answered).toEqual(["first", "later 1", "later 2", "later 3"]);
    expect(commits.syncs).toBe(2);
  });

  it("a failed sync fails its own waiters, and the next flush starts afresh", async () => {
    let fail = true;
    const commits = new GroupCommit(async () => {
      if (fail) throw new Error("disk full");
    });
    await expect(commits.flush()).rejects.toThrow("disk full");
    fail = false;
    await expect(commits.flush()).resolves.toBeUndefined();
    expect(commits.syncs).toBe(2);
  });

  it("16 concurrent write calls on one thread commit their journal rows in fewer syncs than calls", async () => {
    const id = await createThread({ agent: "guarantees" });
    const before = await inThread(id, (instance: any) => instance.commits.syncs as number);
    const answers = await Promise.all(
      Array.from({ length: 16 }, (_, i) => json("POST", "/v1/tools/effect_write", { sessionId: id, input: { label: `w${i}` } })),
    );
    expect(answers.map((a) => a.body.ok)).toEqual(Array(16).fill(true));
    const syncs = (await inThread(id, (instance: any) => instance.commits.syncs as number)) - before;
    expect(syncs).toBeGreaterThan(0);
    expect(syncs).toBeLessThan(16);
  });
});
