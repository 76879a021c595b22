/**
 * A thread made before a call's row kept the effect class it started under: the migration adds the
 * column when the thread's Durable Object starts, NULL on the rows it had, and calls a restart
 * interrupted then are recovered as before, by the class their tool has now.
 */
import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { MIGRATIONS } from "../../../src/thread/store/migrations.js";
import { waitAtRest } from "../../crash/matrix.js";
import { declare } from "../../fixtures/lib/redeclared.js";
import { callsOf, createThread, effectRuns, rawStub } from "../../helpers.js";
import { schemaBackTo } from "./schema-back.js";

/** The migration that adds the column, and the schema version before it. */
const ADDED = MIGRATIONS.findIndex((m) => /ALTER TABLE calls ADD COLUMN effect\b/.test(m));

describe("a thread made before calls kept the effect class they started under", () => {
  it("migrates when it starts; its interrupted calls are recovered by the class their tool has now", async () => {
    expect(ADDED, "the migration that adds calls.effect").toBeGreaterThan(0);
    const id = await createThread({ agent: "guarantees" });
    const label = `before-${id}`;
    // Started as a write by then, a read now: with no class stored, recovery goes by the tool as it is.
    declare(label, "read");
    await runInDurableObject(rawStub(id), async (_instance, state) => {
      await state.storage.deleteAlarm();
      const sql = state.storage.sql;
      state.storage.transactionSync(() => {
        schemaBackTo(sql, ADDED);
        const started = `INSERT INTO calls (ord, call_id, tool_name, source, status, args_text, input, attempts, effect_key, created_at, started_at)
          VALUES (?, ?, ?, 'model', 'started', ?, '=', 1, ?, 100, 100)`;
        sql.exec(started, 1, "w", "effect_write", "{}", `${id}:w`);
        sql.exec(started, 2, "r", "effect_redeclared", JSON.stringify({ label }), `${id}:r`);
      });
    });
    await evictDurableObject(rawStub(id));

    expect(await waitAtRest(id)).toBeNull();
    const columns = await runInDurableObject(rawStub(id), (_instance, state) => ({
      version: state.storage.sql.exec<{ version: number }>("SELECT version FROM weft_schema").one().version,
      effects: state.storage.sql.exec<{ call_id: string; effect: string | null }>("SELECT call_id, effect FROM calls ORDER BY ord").toArray(),
    }));
    expect(columns.version).toBe(MIGRATIONS.length);
    const calls = await callsOf(id);
    expect(calls.map((c) => `${c.callId}:${c.status}`)).toEqual(["w:parked", "r:succeeded"]);
    expect([(await effectRuns(id, "w")).runs, (await effectRuns(id, "r")).runs]).toEqual([0, 1]);
    // The write stays NULL; the read's run again is started under the class it ran as.
    expect(columns.effects).toEqual([{ call_id: "w", effect: null }, { call_id: "r", effect: "read" }]);
  });
});
