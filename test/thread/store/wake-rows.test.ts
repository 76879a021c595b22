/**
 * Rows a waking thread reads when it runs no call (GET /threads/:id after an eviction) do not grow
 * with its calls: 2,000 nested (invokeTool) calls and no queued one. Looking for a queued child
 * (`source` is not in `calls_by_parent`) would read every one of them.
 */
import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createThread, json, rawStub } from "../../helpers.js";

type Exec = SqlStorage["exec"];

describe("a read-only wake", () => {
  it("reads rows independent of how many nested calls the thread holds", async () => {
    const threadId = await createThread({ agent: "guarantees" });
    expect((await json("POST", "/v1/tools/effect_read", { input: { label: "x" }, sessionId: threadId })).status).toBe(200);
    const N = 2000;
    await runInDurableObject(rawStub(threadId), (_i, state) => {
      const sql = state.storage.sql;
      state.storage.transactionSync(() => {
        for (let i = 0; i < N; i++) {
          sql.exec(
            "INSERT INTO calls (call_id, ord, tool_name, source, status, args_text, effect_key, parent_call_id, created_at, finished_at) VALUES (?, ?, 't', 'invoke', 'succeeded', '{}', ?, 'p', 0, 1)",
            `k${i}`,
            1000 + i,
            `e${i}`,
          );
        }
      });
    });
    await evictDurableObject(rawStub(threadId));
    const other = await createThread({ agent: "guarantees" });
    const proto = await runInDurableObject(rawStub(other), (_i, state) => Object.getPrototypeOf(state.storage.sql) as { exec: Exec });
    const exec = proto.exec;
    const seen: { q: string; c: SqlStorageCursor<Record<string, SqlStorageValue>> }[] = [];
    proto.exec = function (this: SqlStorage, query: string, ...b: unknown[]) {
      const c = exec.call(this, query, ...(b as []));
      seen.push({ q: query, c });
      return c;
    } as Exec;
    try {
      expect((await json("GET", `/threads/${threadId}`)).status).toBe(200);
    } finally {
      proto.exec = exec;
    }
    const heavy = seen.map((s) => ({ q: s.q.slice(0, 90), read: s.c.rowsRead })).filter((r) => r.read > 50);
    expect(heavy).toEqual([]);
  });
});
