/**
 * The calls table's indexes: every statement the call store runs finds its rows by an index seek
 * (only listings in creation order walk the table, in its own order, up to their limit), and a
 * thread made before `ord` became the rowid keeps its calls, their order and their statuses.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { CallStore, type NewCall } from "../../../src/thread/store/calls.js";
import { MIGRATIONS, migrate } from "../../../src/thread/store/migrations.js";

const ns = () => (env as unknown as { THREAD: DurableObjectNamespace }).THREAD;

/** A call row as the pipeline makes it. */
function entry(callId: string, status: "queued" | "started", more: Partial<NewCall> = {}): NewCall {
  return { callId, toolName: "t", source: "direct", status, argsText: "{}", input: {}, effectKey: `k:${callId}`, ...more };
}

const RESULT = { status: "success" as const, result: "ok" };

describe("the call store's statements", () => {
  it("each seeks an index; only listings in creation order walk the table, in order and up to their limit", async () => {
    const plans = await runInDurableObject(ns().get(ns().newUniqueId()), (_instance, state) => {
      migrate(state.storage);
      const raw = state.storage.sql;
      const seen = new Map<string, unknown[]>();
      const sql = Object.create(raw) as SqlStorage;
      sql.exec = ((query: string, ...bindings: SqlStorageValue[]) => {
        seen.set(query, bindings);
        return raw.exec(query, ...bindings);
      }) as SqlStorage["exec"];
      const calls = new CallStore(sql);
      calls.insert(entry("q1", "queued", { source: "queue", parentCallId: "p1" }));
      calls.insert(entry("s1", "started", { turnId: "turn1" }));
      calls.hold(entry("r1", "started"));
      calls.finish("r1", "succeeded", RESULT, { attempts: 1, durationMs: 1 });
      calls.hold(entry("r2", "started"));
      calls.settle();
      calls.start("q1", {}, "write");
      calls.attempt("q1");
      calls.restarted("q1");
      calls.finish("q1", "succeeded", RESULT, { attempts: 2, durationMs: 1 });
      calls.insert(entry("a1", "queued", { source: "invoke", parentCallId: "p1" }));
      calls.awaitApproval("a1", {}, "hash");
      calls.setApprovedBy("a1", "someone");
      calls.setDecidedBy("a1", "someone");
      calls.park("s1", "uncertain");
      calls.get("s1");
      calls.queued();
      calls.queuedBy("p1");
      calls.invokedWaiting("p1");
      calls.waitForPerson();
      calls.turnWaits("turn1");
      calls.unfinished();
      [...calls.list()];
      [...calls.list(10, 0, "parked")];
      [...calls.list(10, 0, "succeeded")];
      [...calls.list(10, 0, ["awaiting_approval", "parked"])];
      return [...seen].map(([query, bindings]) => ({
        query,
        plan: raw
          .exec(`EXPLAIN QUERY PLAN ${query}`, ...(bindings as SqlStorageValue[]))
          .toArray()
          .map((r) => String(r.detail))
          .join("; "),
      }));
    });
    const listing = /^SELECT (\*|ord) FROM calls (WHERE status = \? )?ORDER BY ord (DESC )?LIMIT/;
    for (const { query, plan } of plans) {
      if (/^INSERT/.test(query)) continue;
      expect(plan, query).not.toMatch(/TEMP B-TREE/);
      if (listing.test(query)) expect(plan, query).toMatch(/^SCAN calls$/);
      else expect(plan, query).toMatch(/^(MERGE \(UNION ALL\); LEFT; )?SEARCH calls USING (INTEGER PRIMARY KEY|(COVERING )?INDEX \w+) \(/);
    }
    // Several statuses (a person's inbox: awaiting_approval and parked): each sought in order, the two merged, nothing sorted.
    expect(plans.find((p) => / UNION ALL /.test(p.query))?.plan).toBe("MERGE (UNION ALL); LEFT; SEARCH calls USING INDEX calls_unfinished (status=?); RIGHT; SEARCH calls USING INDEX calls_unfinished (status=?)");
    // Calls waiting for something are found by status in the index of calls without a result.
    const unfinishedStatus = plans.filter((p) => /status (=|IN) /.test(p.query) && !/call_id = \?|parent_call_id|turn_id/.test(p.query) && !listing.test(p.query));
    expect(unfinishedStatus.map((p) => p.query).join("\n")).toMatch(/'queued'[\s\S]*'started'|'started'[\s\S]*'queued'/);
    for (const { query, plan } of unfinishedStatus) expect(plan, query).toMatch(/INDEX calls_unfinished \(status/);
    expect(plans.find((p) => /status = \? AND finished_at IS NULL/.test(p.query))?.plan).toMatch(/INDEX calls_unfinished \(status=\?\)/);
  });
});

describe("the migration that makes a call's order the rowid", () => {
  it("keeps every call of a thread made before it, in order, with every column, and its lookups", async () => {
    const found = await runInDurableObject(ns().get(ns().newUniqueId()), (_instance, state) => {
      const sql = state.storage.sql;
      // The schema as it stood before: every migration up to the one under test.
      const before = MIGRATIONS.findIndex((m) => m.includes("calls_unfinished"));
      sql.exec("CREATE TABLE weft_schema (version INTEGER NOT NULL)");
      sql.exec("INSERT INTO weft_schema (version) VALUES (?)", before);
      for (const m of MIGRATIONS.slice(0, before)) sql.exec(m);
      const insert = `INSERT INTO calls (call_id, ord, tool_name, source, status, args_text, input, result, attempts, effect_key, turn_id, parent_call_id,
        created_at, started_at, finished_at, duration_ms, stubbed, approved_by, park_reason, args_hash, error_code, decided_by, restarts)
        VALUES (?, ?, 't', ?, ?, '{"a":1}', '=', ?, 1, ?, ?, ?, 100, 101, ?, ?, 0, ?, ?, ?, ?, ?, ?)`;
      // Inserted out of order, with a gap in ord, as rows of any age may stand.
      sql.exec(insert, "done", 3, "direct", "succeeded", '{"status":"success","result":"x"}', "k:done", null, null, 110, 9, null, null, null, null, null, 0);
      sql.exec(insert, "queued1", 7, "queue", "queued", null, "k:queued1", "turn1", "done", null, null, null, null, null, null, null, 0);
      sql.exec(insert, "started1", 1, "model", "started", null, "k:started1", "turn1", null, null, null, null, null, null, null, null, 2);
      sql.exec(insert, "parked1", 5, "invoke", "parked", null, "k:parked1", "turn1", "done", null, null, "ann", "outcome unknown", "h", null, "ann", 0);
      sql.exec(insert, "failed1", 6, "direct", "failed", '{"status":"error","error":"no"}', "k:failed1", null, null, 120, 3, null, null, null, "E_X", null, 0);
      const old = sql.exec("SELECT * FROM calls ORDER BY ord").toArray();
      migrate(state.storage);
      const calls = new CallStore(sql);
      const after = sql.exec("SELECT * FROM calls ORDER BY ord").toArray();
      calls.insert(entry("new1", "started"));
      let duplicate = "";
      try {
        calls.insert(entry("done", "started"));
      } catch (e) {
        duplicate = String(e);
      }
      return {
        old,
        after,
        indexes: sql.exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'calls' ORDER BY name").toArray().map((r) => r.name),
        queued: calls.queued().map((c) => c.callId),
        unfinished: calls.unfinished().map((c) => c.callId),
        waits: calls.waitForPerson(),
        turnWaits: calls.turnWaits("turn1"),
        children: calls.queuedBy("done").map((c) => c.callId),
        invokedWaiting: calls.invokedWaiting("done"),
        failed: [...calls.list(10, 0, "failed")].map((c) => c.callId),
        all: [...calls.list()].map((c) => c.callId),
        parked: calls.get("parked1"),
        ords: sql.exec<{ ord: number; call_id: string }>("SELECT ord, call_id FROM calls ORDER BY ord").toArray(),
        duplicate,
      };
    });
    // Same rows, same columns, same order; `ord` numbers them 1..n in that order. A later
    // migration's column, the effect class a call started under, is NULL on rows made before it.
    expect(found.after).toEqual(found.old.map((row, i) => ({ ...row, ord: i + 1, effect: null })));
    expect(found.indexes).toEqual(["calls_by_parent", "calls_unfinished", "sqlite_autoindex_calls_1"]);
    expect(found.queued).toEqual(["queued1"]);
    expect(found.unfinished).toEqual(["started1", "new1"]);
    expect(found.waits).toBe(true);
    expect(found.turnWaits).toBe(true);
    expect(found.children).toEqual(["queued1"]);
    expect(found.invokedWaiting).toBe(true);
    expect(found.failed).toEqual(["failed1"]);
    expect(found.all).toEqual(["started1", "done", "parked1", "failed1", "queued1", "new1"]);
    expect(found.parked).toMatchObject({ status: "parked", parkReason: "outcome unknown", approvedBy: "ann", decidedBy: "ann", argsHash: "h", input: { a: 1 } });
    expect(found.ords.map((r) => r.ord)).toEqual([1, 2, 3, 4, 5, 6]);
    // call_id stays unique: a second row with a taken id is refused and takes no number.
    expect(found.duplicate).toMatch(/UNIQUE constraint failed: calls\.call_id/);
  });
});
