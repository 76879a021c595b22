/**
 * `OpenKeys`, what arms a thread's watchdog for call rows left unfinished: it settles once, before
 * the microtask queue drains, when a key is still open at the settle window's end, and not at all
 * when every key was closed within it.
 */
import { describe, expect, it } from "vitest";
import { OpenKeys, SETTLE_TURNS } from "../../src/calls/settle-window.js";

/** Resolves after the microtask queue has drained (a macrotask later). */
const drained = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** Waits `n` microtask turns. */
async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await Promise.resolve();
}

describe("OpenKeys", () => {
  it("settles once for keys left open, before the microtask queue drains", async () => {
    let settled = 0;
    const keys = new OpenKeys(() => settled++);
    keys.open("a");
    keys.open("b");
    keys.close("a");
    // Microtask turns only: settling must not wait for a macrotask (workerd commits then).
    await turns(2 * SETTLE_TURNS);
    expect(settled).toBe(1);
    await drained();
    expect(settled).toBe(1);
    // Settled keys are forgotten: the next window starts empty.
    keys.open("c");
    keys.close("c");
    await drained();
    expect(settled).toBe(1);
  });

  it("does not settle for a key closed within the window, even several turns later", async () => {
    let settled = 0;
    const keys = new OpenKeys(() => settled++);
    keys.open("a");
    await turns(SETTLE_TURNS - 2);
    keys.close("a");
    await drained();
    expect(settled).toBe(0);
  });

  it("settles for a key closed only after the window (a call waiting for I/O)", async () => {
    let settled = 0;
    const keys = new OpenKeys(() => settled++);
    keys.open("a");
    await drained();
    keys.close("a");
    expect(settled).toBe(1);
  });
});
