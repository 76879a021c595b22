/**
 * The SQL statements a direct call on a session runs (counted by wrapping `storage.sql.exec`):
 * its call row, its result and its two events, and nothing read. Arming the watchdog alarm once
 * read the schedules' and background runs' next times (two MIN queries per arming); this
 * instance writes those tables itself, so it keeps them (src/schedules/store.ts, src/background/store.ts).
 */
import { describe, expect, it } from "vitest";
import { createThread, json, recordStatements } from "../../helpers.js";

describe("statements per direct call", () => {
  it("a read and a write each run at most 4 statements, none of them a read of storage", async () => {
    const threadId = await createThread({ agent: "guarantees" });
    const call = async (tool: string, label: string) => expect((await json("POST", `/v1/tools/${tool}`, { input: { label }, sessionId: threadId })).status).toBe(200);
    await call("effect_read", "warm");
    await call("effect_write", "warm");
    const statements = await recordStatements(threadId, (query) => query.replace(/\s+/g, " ").slice(0, 90));
    const per = async (tool: string): Promise<string[]> => {
      await statements.take();
      for (let i = 0; i < 10; i++) await call(tool, `${tool}${i}`);
      return statements.take();
    };
    const reads = await per("effect_read");
    const writes = await per("effect_write");
    const count = (list: string[]) => [...list.reduce((m, q) => m.set(q, (m.get(q) ?? 0) + 1), new Map<string, number>())].map(([q, n]) => `${n}x ${q}`).join("\n");
    console.log(`statements by 10 direct reads: ${reads.length}\n${count(reads)}\nstatements by 10 direct writes: ${writes.length}\n${count(writes)}`);
    expect(reads.length / 10).toBeLessThanOrEqual(4);
    expect(writes.length / 10).toBeLessThanOrEqual(4);
    expect([...reads, ...writes].filter((q) => /^SELECT/i.test(q))).toEqual([]);
  }, 60_000);
});
