/**
 * What a direct call costs in rows read (workerd's `cursor.rowsRead`, what Durable Object storage
 * bills): its own call row, its events, and the alarm's due times by index. No schema lookups: a
 * background runs' table made on first use once cost every call that armed the alarm a scan of
 * sqlite_master (about 48 rows).
 */
import { describe, expect, it } from "vitest";
import { countRows, createThread, json } from "../../helpers.js";

describe("rows read by direct calls", () => {
  it("20 read and write calls on a thread with no schedule or background run read at most 10 rows each", async () => {
    const threadId = await createThread({ agent: "guarantees" });
    const call = async (tool: string, label: string) => expect((await json("POST", `/v1/tools/${tool}`, { input: { label }, sessionId: threadId })).status).toBe(200);
    await call("effect_read", "warm");
    const counter = await countRows(threadId);
    for (let i = 0; i < 10; i++) {
      await call("effect_read", `r${i}`);
      await call("effect_write", `w${i}`);
    }
    const read = await counter.read();
    console.log(`rows read by 20 direct calls: ${read}`);
    expect(read).toBeGreaterThan(0);
    expect(read / 20).toBeLessThanOrEqual(10);
  }, 60_000);
});
