/**
 * What a thread reads when its Durable Object wakes (the first request after an eviction): its
 * schema version in one statement, and no lookup in `sqlite_master` (each one reads a row per
 * table and index of the thread, about 48, billed as rows read on every wake); whether it holds a
 * file in one row, not a listing of them all. An object that holds no thread still answers
 * `thread_not_found` and is left without tables.
 */
import { env, evictDurableObject, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createThread, eventsStoredIn, json, rawStub } from "../../helpers.js";

type Exec = SqlStorage["exec"];

/**
 * Runs `fn` with every SQL statement of this isolate recorded (an instance's constructor too),
 * reaching the storage's prototype through thread `viaThreadId`.
 */
async function recorded(viaThreadId: string, fn: () => Promise<void>): Promise<string[]> {
  const seen: string[] = [];
  const proto = await runInDurableObject(rawStub(viaThreadId), (_i, state) => Object.getPrototypeOf(state.storage.sql) as { exec: Exec });
  const exec = proto.exec;
  proto.exec = function (this: SqlStorage, query: string, ...bindings: unknown[]) {
    seen.push(query);
    return exec.call(this, query, ...(bindings as []));
  } as Exec;
  try {
    await fn();
  } finally {
    proto.exec = exec;
  }
  return seen;
}

/** A thread with one call, evicted, then called again: the statements of that call (its wake included). */
async function wokenByCall(): Promise<{ threadId: string; statements: string[] }> {
  const threadId = await createThread({ agent: "guarantees" });
  expect((await json("POST", "/v1/tools/effect_read", { input: { label: "before" }, sessionId: threadId })).status).toBe(200);
  const other = await createThread({ agent: "guarantees" });
  await evictDurableObject(rawStub(threadId));
  const statements = await recorded(other, async () => {
    expect((await json("POST", "/v1/tools/effect_read", { input: { label: "after" }, sessionId: threadId })).status).toBe(200);
  });
  return { threadId, statements };
}

describe("a thread waking", () => {
  it("reads its schema version in one statement, never scans sqlite_master, never lists its files", async () => {
    const { statements } = await wokenByCall();
    expect(statements.filter((q) => q.includes("weft_schema"))).toEqual(["SELECT version FROM weft_schema"]);
    expect(statements.filter((q) => q.includes("sqlite_master"))).toEqual([]);
    // Whether the thread holds a file (for the built-in read_file) is one row, not its listing.
    expect(statements.filter((q) => / FROM files\b/.test(q))).toEqual(["SELECT 1 FROM files LIMIT 1"]);
  });

  it("reads its record and what its stores keep in memory (newest turn, last ord and seq, queued calls, schedules' restore) in one statement", async () => {
    const { threadId, statements } = await wokenByCall();
    // Each distinct statement is compiled on the new connection first: these were seven of them.
    const alone = [
      "SELECT status FROM turns ORDER BY ord DESC LIMIT 1",
      "SELECT ord FROM calls ORDER BY ord DESC LIMIT 1",
      "SELECT seq FROM events ORDER BY seq DESC LIMIT 1",
      "SELECT * FROM calls WHERE status = 'queued' AND finished_at IS NULL ORDER BY ord",
      // The schedules' and background runs' restore.
      "SELECT MIN(check_at) AS t FROM background_runs WHERE status = 'running'",
      "SELECT key, schedule_id, due_at, status, call_id FROM occurrences WHERE status IN ('queued', 'started') ORDER BY due_at LIMIT ?",
      "SELECT MIN(fire_at) AS t FROM schedules WHERE status = 'active'",
    ];
    expect(statements.filter((q) => alone.includes(q))).toEqual([]);
    expect(statements.filter((q) => q.includes("FROM meta WHERE key = 'thread'"))).toHaveLength(1);
    // What it read is what the thread holds: the call and its events after the wake continue the numbering.
    const numbers = await runInDurableObject(rawStub(threadId), (_i, state) => ({
      ords: state.storage.sql.exec<{ ord: number }>("SELECT ord FROM calls ORDER BY ord").toArray().map((r) => r.ord),
      seqs: eventsStoredIn(state.storage.sql).map((e) => e.seq),
    }));
    expect(numbers.ords).toEqual([1, 2]);
    expect(numbers.seqs).toEqual(numbers.seqs.map((_, i) => i + 1));
    expect(numbers.seqs.length).toBeGreaterThan(2);
  });

  it("an object that holds no thread answers not found and is left without tables", async () => {
    const made = await createThread({ agent: "guarantees" });
    const missing = (env as unknown as { THREAD: DurableObjectNamespace }).THREAD.newUniqueId().toString();
    const statements = await recorded(made, async () => {
      expect((await json("GET", `/threads/${missing}`)).status).toBe(404);
    });
    expect(statements.filter((q) => q.includes("sqlite_master"))).toEqual([]);
    const tables = await runInDurableObject(rawStub(missing), (_i, state) => state.storage.sql.exec("SELECT name FROM sqlite_master").toArray());
    expect(tables).toEqual([]);
  });
});
