/**
 * A thread whose calls table still has the shape it had before `ord` became the rowid: the
 * migration runs when the thread's Durable Object starts, and the thread answers as before (every
 * call listed in the same order with the same fields, replay unchanged), then goes on: a call
 * waiting for approval runs once when approved, new calls list after the old ones. A migration
 * cut before it commits leaves the thread as it was, and the next start migrates it.
 */
import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { MIGRATIONS } from "../../../src/thread/store/migrations.js";
import { callsOf, createThread, eventsOf, json, effectRuns, rawStub, stubOf } from "../../helpers.js";
import { schemaBackTo } from "./schema-back.js";

const ns = () => (env as unknown as { THREAD: DurableObjectNamespace }).THREAD;
/** The migration that rebuilt the calls table, and the schema version before it. */
const REBUILD = MIGRATIONS.findIndex((m) => m.includes("calls_unfinished"));

/** The calls table and its indexes as the migrations before the rebuild left them (their `CREATE` statements). */
async function oldCallsSchema(): Promise<string[]> {
  return runInDurableObject(ns().get(ns().newUniqueId()), (_instance, state) => {
    const sql = state.storage.sql;
    for (const m of MIGRATIONS.slice(0, REBUILD)) sql.exec(m);
    return sql
      .exec<{ sql: string }>("SELECT sql FROM sqlite_master WHERE tbl_name = 'calls' AND sql IS NOT NULL ORDER BY type DESC, name")
      .toArray()
      .map((r) => r.sql);
  });
}

/**
 * Puts a thread's calls back in the old table (rows in reverse order, `ord` with gaps), at the
 * schema version before the rebuild, as a thread made before it has them.
 */
async function backToOldSchema(threadId: string): Promise<void> {
  const schema = await oldCallsSchema();
  await runInDurableObject(rawStub(threadId), async (_instance, state) => {
    // The running instance still reads the new schema: its watchdog alarm, firing before the test
    // evicts it, would fail on the columns dropped below (an uncaught error in the log, nothing more).
    await state.storage.deleteAlarm();
    const sql = state.storage.sql;
    state.storage.transactionSync(() => {
      const rows = sql.exec("SELECT * FROM calls ORDER BY ord DESC").toArray();
      sql.exec("DROP TABLE calls");
      for (const statement of schema) sql.exec(statement);
      // Columns the migrations after the rebuild add to the calls table are not in its old form.
      const old = new Set(sql.exec<{ name: string }>("SELECT name FROM pragma_table_info('calls')").toArray().map((c) => c.name));
      for (const row of rows) {
        const columns = Object.keys(row).filter((c) => old.has(c));
        const values = columns.map((c) => (c === "ord" ? (row[c] as number) * 10 + 3 : row[c]!));
        sql.exec(`INSERT INTO calls (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`, ...values);
      }
      // Columns the migrations after the rebuild add go too, as a thread made before them lacks them.
      schemaBackTo(sql, REBUILD);
    });
  });
}

/** A thread with calls of every kind: a turn's calls (one awaiting approval), direct reads and writes, a refusal. */
async function threadWithCalls(): Promise<string> {
  const id = await createThread({ agent: "guarantees" });
  const direct = (tool: string, input: unknown) => json("POST", `/v1/tools/${tool}`, { input, sessionId: id });
  expect((await direct("effect_read", { label: "r1" })).status).toBe(200);
  expect((await direct("effect_write", { label: "w1" })).status).toBe(200);
  await json("POST", `/threads/${id}/messages`, {
    content: "pay",
    script: [{ toolCalls: [{ id: "auto", name: "record_call", arguments: { note: "automatic" } }, { id: "pay", name: "needs_ok", arguments: { amount: 500 } }] }, { text: "all done" }],
  });
  await stubOf(id).waitIdle();
  return id;
}

const schemaOf = (threadId: string) =>
  runInDurableObject(rawStub(threadId), (_instance, state) => ({
    version: state.storage.sql.exec<{ version: number }>("SELECT version FROM weft_schema").one().version,
    indexes: state.storage.sql
      .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'calls' ORDER BY name")
      .toArray()
      .map((r) => r.name),
  }));

describe("a thread made before a call's order became the rowid", () => {
  it("migrates when it starts: same calls, order and events; it goes on from there", async () => {
    const id = await threadWithCalls();
    const calls = await callsOf(id);
    const events = await eventsOf(id);
    expect(calls.map((c) => c.status)).toEqual(["succeeded", "succeeded", "succeeded", "awaiting_approval"]);
    await backToOldSchema(id);
    expect((await schemaOf(id)).indexes).toContain("calls_by_status");
    await evictDurableObject(rawStub(id));

    expect(await callsOf(id)).toEqual(calls);
    expect(await schemaOf(id)).toEqual({ version: MIGRATIONS.length, indexes: ["calls_by_parent", "calls_unfinished", "sqlite_autoindex_calls_1"] });
    expect(await eventsOf(id)).toEqual(events);

    // The call waiting for approval is found, and runs once.
    const approved = await json("POST", `/threads/${id}/calls/pay/approve`, {});
    expect(approved.status).toBe(200);
    await stubOf(id).waitIdle();
    expect((await effectRuns(id, "pay")).runs).toBe(1);
    expect((await json("POST", `/threads/${id}/calls/pay/deny`, {})).body.error.code).toBe("call_not_waiting");
    // New calls come after the old ones, with ids of their own.
    const read = await json("POST", `/v1/tools/effect_read`, { input: { label: "r2" }, sessionId: id });
    const write = await json("POST", `/v1/tools/effect_write`, { input: { label: "w2" }, sessionId: id });
    expect([read.status, write.status]).toEqual([200, 200]);
    const after = await callsOf(id);
    expect(after.map((c) => c.callId)).toEqual([...calls.map((c) => c.callId), read.body.callId, write.body.callId]);
    expect(new Set(after.map((c) => c.callId)).size).toBe(after.length);
    expect(after.find((c) => c.callId === "pay")).toMatchObject({ status: "succeeded", attempts: 1 });
    // Replay stays gap-free across the migration.
    const seqs = (await eventsOf(id)).map((e) => e.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
  });

  it("a migration cut before it commits leaves the thread as it was; the next start migrates it", async () => {
    const id = await threadWithCalls();
    const calls = await callsOf(id);
    await backToOldSchema(id);
    const cut = await runInDurableObject(rawStub(id), (_instance, state) => {
      const before = state.storage.sql.exec("SELECT * FROM calls ORDER BY ord").toArray();
      const statements = MIGRATIONS[REBUILD]!.split(";").filter((s) => s.trim() !== "");
      const outcomes: string[] = [];
      // Cut after each statement in turn (a crash mid-migration rolls its transaction back).
      for (let n = 1; n <= statements.length; n++) {
        try {
          state.storage.transactionSync(() => {
            for (const s of statements.slice(0, n)) state.storage.sql.exec(s);
            throw new Error("cut");
          });
        } catch (e) {
          outcomes.push(String(e));
        }
      }
      return { before, after: state.storage.sql.exec("SELECT * FROM calls ORDER BY ord").toArray(), outcomes: new Set(outcomes).size, n: statements.length };
    });
    expect(cut.n).toBeGreaterThan(3);
    expect(cut.outcomes).toBe(1);
    expect(cut.after).toEqual(cut.before);
    expect(await schemaOf(id)).toMatchObject({ version: REBUILD });
    await evictDurableObject(rawStub(id));
    expect(await callsOf(id)).toEqual(calls);
    expect((await schemaOf(id)).version).toBe(MIGRATIONS.length);
  });
});
