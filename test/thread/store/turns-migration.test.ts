/**
 * A thread whose turns table has the shape it had before a turn's number became the rowid (v27):
 * it migrates when it starts, keeps every turn with its columns in the same order, and goes on: a
 * turn waiting for approval resumes when approved, and a new turn comes after the old ones. A new
 * turn's row enters the table and its `turn_id` key only.
 */
import { evictDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { MIGRATIONS } from "../../../src/thread/store/migrations.js";
import { TURNS_BY_ROWID_DDL } from "../../../src/run/turn-table.js";
import { createThread, inThread, json, rawStub, runTurn, stubOf } from "../../helpers.js";
import { schemaBackTo } from "./schema-back.js";

const REBUILD = MIGRATIONS.indexOf(TURNS_BY_ROWID_DDL);

/** The turns table as the migrations before the rebuild left it. */
const OLD_TURNS = `
  CREATE TABLE turns (turn_id TEXT PRIMARY KEY, ord INTEGER NOT NULL, status TEXT NOT NULL, steps INTEGER NOT NULL DEFAULT 0, started_at INTEGER NOT NULL,
    finished_at INTEGER, error TEXT, pending_step TEXT, model_steps TEXT, model_request TEXT, error_code TEXT, forced_side TEXT, model_settings TEXT);
  CREATE INDEX turns_by_ord ON turns (ord);
`;

const turnRows = (id: string) => inThread(id, (i) => i.ctx.storage.sql.exec("SELECT * FROM turns ORDER BY ord").toArray());
const schemaOf = (id: string) =>
  inThread(id, (i) => ({
    version: i.ctx.storage.sql.exec("SELECT version FROM weft_schema").one().version,
    indexes: i.ctx.storage.sql.exec("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'turns' ORDER BY name").toArray().map((r: { name: string }) => r.name),
  }));

describe("a thread made before a turn's number became the rowid", () => {
  it("migrates when it starts: same turns in the same order; a waiting turn resumes; new turns come after", async () => {
    const id = await createThread({ agent: "guarantees" });
    await runTurn(id, "one", [{ text: "first" }]);
    await runTurn(id, "two", [{ toolCalls: [{ id: "t1", name: "record_call", arguments: { note: "n" } }] }, { text: "second" }]);
    await runTurn(id, "pay", [{ toolCalls: [{ id: "pay", name: "needs_ok", arguments: { amount: 500 } }] }, { text: "paid" }]);
    // As rows were then: without the columns v28 and v29 added.
    const rows = (await turnRows(id)).map(({ messages_before: _, stop_requested: __, ...row }: Record<string, unknown>) => row);
    expect(rows.map((r: { status: string }) => r.status)).toEqual(["completed", "completed", "waiting"]);
    // Back to the old table: rows inserted newest first, numbers with gaps.
    await inThread(id, (i) => {
      const sql = i.ctx.storage.sql;
      i.ctx.storage.transactionSync(() => {
        sql.exec("DROP TABLE turns");
        sql.exec(OLD_TURNS);
        for (const row of [...rows].reverse()) {
          const columns = Object.keys(row);
          sql.exec(`INSERT INTO turns (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`, ...columns.map((c) => (c === "ord" ? row[c] * 10 + 3 : row[c])));
        }
        schemaBackTo(sql, REBUILD);
      });
    });
    expect((await schemaOf(id)).indexes).toEqual(["sqlite_autoindex_turns_1", "turns_by_ord"]);
    await evictDurableObject(rawStub(id));
    expect(await turnRows(id)).toEqual(rows.map((row: Record<string, unknown>) => ({ ...row, messages_before: null, stop_requested: null })));
    expect(await schemaOf(id)).toEqual({ version: MIGRATIONS.length, indexes: ["sqlite_autoindex_turns_1"] });
    expect((await json("GET", `/threads/${id}`)).body.status).toBe("waiting");
    expect((await json("POST", `/threads/${id}/calls/pay/approve`, {})).status).toBe(200);
    await stubOf(id).waitIdle();
    const rows2 = await turnRows(id);
    expect(rows2.map((r: { status: string }) => r.status)).toEqual(["completed", "completed", "completed"]);
    await runTurn(id, "four", [{ text: "fourth" }]);
    const after = await turnRows(id);
    expect(after.map((r: { ord: number }) => r.ord)).toEqual([1, 2, 3, 4]);
    expect(after.slice(0, 3).map((r: { turn_id: string }) => r.turn_id)).toEqual(rows.map((r: { turn_id: string }) => r.turn_id));
    expect(await inThread(id, (i) => i.store.turns.latest().status)).toBe("completed");
  });

  it("a new turn's row writes the table and its turn_id key (2 rows), numbered after the last; lookups seek", async () => {
    const id = await createThread({ agent: "guarantees" });
    await runTurn(id, "warm", [{ text: "warm" }]);
    const plans = await inThread(id, (i) => {
      const sql = i.ctx.storage.sql;
      const exec = sql.exec.bind(sql);
      let written = 0;
      sql.exec = ((q: string, ...b: SqlStorageValue[]) => {
        const cursor = exec(q, ...b);
        if (/^INSERT INTO turns/.test(q)) written += (cursor.toArray(), cursor.rowsWritten);
        return cursor;
      }) as typeof sql.exec;
      try {
        i.store.turns.begin("probe");
      } finally {
        sql.exec = exec;
      }
      const ords = sql.exec("SELECT ord FROM turns ORDER BY ord").toArray().map((r: { ord: number }) => r.ord);
      const plan = (q: string) => sql.exec(`EXPLAIN QUERY PLAN ${q}`).toArray().map((r: { detail: string }) => r.detail).join("; ");
      return { written, ords, newest: plan("SELECT status FROM turns ORDER BY ord DESC LIMIT 1"), byId: plan("SELECT status FROM turns WHERE turn_id = 'x'") };
    });
    expect(plans.written).toBe(2);
    expect(plans.ords).toEqual([1, 2]);
    expect(plans.newest).toMatch(/^SCAN turns$/);
    expect(plans.byId).toMatch(/USING INDEX sqlite_autoindex_turns_1/);
  });
});
