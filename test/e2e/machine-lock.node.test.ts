/** test/e2e/machine-lock.ts: a second taker waits for the release; a dead holder's lock is taken over. */
import { mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { machineLock } from "./machine-lock.js";

describe("a lock across processes", () => {
  it("makes a second taker wait until the first releases it", async () => {
    const name = `t-${process.pid}-${Date.now()}`;
    const release = await machineLock(name, 1000);
    const order: string[] = [];
    const second = machineLock(name, 10_000).then((r) => (order.push("second took it"), r));
    await new Promise((r) => setTimeout(r, 600));
    order.push("first releases");
    release();
    (await second)();
    expect(order).toEqual(["first releases", "second took it"]);
    await expect(machineLock(name, 10_000).then((r) => r())).resolves.toBeUndefined();
  });

  it("takes over a lock whose holder is gone, and says who holds a live one", async () => {
    const name = `t-${process.pid}-${Date.now()}-dead`;
    const dir = join(tmpdir(), `weft-lock-${name}`);
    mkdirSync(dir);
    writeFileSync(join(dir, "pid"), "999999999");
    (await machineLock(name, 1000))();
    const held = await machineLock(name, 1000);
    await expect(machineLock(name, 300)).rejects.toThrow(`held by process ${process.pid}`);
    held();
  });
});
