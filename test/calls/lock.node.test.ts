/** The per-call lock (src/calls/lock.ts), which the call runner holds for every transition of a call. */
import { describe, expect, it } from "vitest";
import { CallLocks } from "../../src/calls/lock.js";

describe("CallLocks", () => {
  it("work on one call id never overlaps and runs in arrival order; other ids do not wait; a failure frees the id", async () => {
    const locks = new CallLocks();
    const log: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const first = locks.hold("c1", async () => {
      log.push("a start");
      await gate;
      log.push("a end");
      throw new Error("a failed");
    });
    const second = locks.hold("c1", async () => void log.push("b"));
    const other = locks.hold("c2", async () => void log.push("other"));
    await other;
    expect(log).toEqual(["a start", "other"]);
    release();
    await expect(first).rejects.toThrow("a failed");
    await second;
    expect(log).toEqual(["a start", "other", "a end", "b"]);
    expect(await locks.hold("c1", async () => "free again")).toBe("free again");
  });

  it("two lock sets know nothing of each other: each lifetime of a thread has its own", async () => {
    const [before, after] = [new CallLocks(), new CallLocks()];
    let release!: () => void;
    const held = before.hold("c1", () => new Promise<void>((r) => (release = r)));
    expect(await after.hold("c1", async () => "not held up")).toBe("not held up");
    release();
    await held;
  });
});
