/**
 * Message counters: only silent and nested messages are counted (a visible message of the
 * thread's own conversation writes no counter row), and every page total stays exact. A thread
 * made when every message bumped `messages` and `visible_messages` is migrated from its rows.
 */
import { evictDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { MIGRATIONS } from "../../../src/thread/store/migrations.js";
import { MESSAGE_COUNTERS_DDL } from "../../../src/run/message-counters.js";
import { createThread, inThread, rawStub } from "../../helpers.js";
import { schemaBackTo } from "./schema-back.js";

/** The migration to the counters of the rare kinds, and the schema version before it. */
const COUNTERS = MIGRATIONS.indexOf(MESSAGE_COUNTERS_DDL);

/** Messages of every kind: visible and silent, at depths 0, 1 and 2. */
const KINDS: Array<{ silent: boolean; depth: number }> = [
  { silent: false, depth: 0 },
  { silent: true, depth: 0 },
  { silent: false, depth: 1 },
  { silent: true, depth: 1 },
  { silent: false, depth: 2 },
  { silent: true, depth: 2 },
];

/** Appends `n` rounds of every kind in one transaction per round. */
function appendRounds(id: string, n: number, from = 0): Promise<void> {
  return inThread(id, (i) => {
    for (let r = from; r < from + n; r++) {
      i.store.atomically(() => {
        for (const k of KINDS) i.store.messages.append({ role: "user", content: `m${r}`, silent: k.silent, depth: k.depth, ...(k.depth > 0 ? { metadata: { promptCall: `p${r}` } } : {}) });
      });
    }
  });
}

/** Every page total the list answers against a COUNT(*) of the rows, for each filter. */
function totals(id: string): Promise<Array<{ filter: string; total: number; counted: number }>> {
  return inThread(id, (i) => {
    const sql = i.ctx.storage.sql;
    const out: Array<{ filter: string; total: number; counted: number }> = [];
    for (const includeSilent of [false, true]) {
      for (const maxDepth of [undefined, 0, 1, 2, 5]) {
        const where = [...(includeSilent ? [] : ["silent = 0"]), ...(maxDepth !== undefined ? [`depth <= ${maxDepth}`] : [])];
        const counted = sql.exec(`SELECT COUNT(*) AS n FROM messages ${where.length ? `WHERE ${where.join(" AND ")}` : ""}`).one().n as number;
        const { total } = i.store.messages.list({ includeSilent, ...(maxDepth !== undefined ? { maxDepth } : {}), limit: 1 });
        out.push({ filter: `includeSilent=${includeSilent} maxDepth=${maxDepth}`, total, counted });
      }
    }
    out.push({ filter: "count()", total: i.store.messages.count(), counted: sql.exec("SELECT COUNT(*) AS n FROM messages").one().n as number });
    return out;
  });
}

const expectExact = async (id: string) => {
  for (const t of await totals(id)) expect(t.total, t.filter).toBe(t.counted);
};

const metaRows = (id: string): Promise<Record<string, string>> =>
  inThread(id, (i) => Object.fromEntries(i.ctx.storage.sql.exec("SELECT key, value FROM meta WHERE key LIKE 'n:%'").toArray().map((r: { key: string; value: string }) => [r.key, String(r.value)])));

describe("message counters", () => {
  it("a visible message at depth 0 writes no counter; silent and nested ones are counted; every total is exact", async () => {
    const id = await createThread({ agent: "default" });
    const before = await metaRows(id);
    await inThread(id, (i) => i.store.atomically(() => i.store.messages.append({ role: "user", content: "plain" })));
    expect(await metaRows(id)).toEqual(before);
    await appendRounds(id, 3);
    expect(await metaRows(id)).toMatchObject({ "n:silent_messages": "9", "n:messages@1": "6", "n:silent_messages@1": "3", "n:messages@2": "6", "n:silent_messages@2": "3" });
    await expectExact(id);
  });

  it("a rolled-back append leaves no gap: the count is still the largest id", async () => {
    const id = await createThread({ agent: "default" });
    await appendRounds(id, 1);
    const rolledBack = await inThread(id, (i) => {
      try {
        i.store.atomically(() => {
          i.store.messages.append({ role: "user", content: "gone", silent: true, depth: 1, metadata: { promptCall: "x" } });
          throw new Error("roll back");
        });
      } catch (e) {
        return (e as Error).message;
      }
      return "did not throw";
    });
    expect(rolledBack).toBe("roll back");
    await appendRounds(id, 1, 1);
    await expectExact(id);
    const ids = await inThread(id, (i) => i.ctx.storage.sql.exec("SELECT id FROM messages ORDER BY id").toArray().map((r: { id: number }) => r.id));
    expect(ids).toEqual(ids.map((_: number, n: number) => n + 1));
  });

  it("a thread made under the old counters (every message and every visible one counted) is migrated from its rows", async () => {
    const id = await createThread({ agent: "default" });
    await appendRounds(id, 4);
    // Back to the old layout at the version before the migration: the old counters as the old code bumped them.
    await inThread(id, (i) => {
      const sql = i.ctx.storage.sql;
      i.ctx.storage.transactionSync(() => {
        sql.exec("DELETE FROM meta WHERE key LIKE 'n:%'");
        const bump = (key: string, where: string) => sql.exec(`INSERT INTO meta (key, value) SELECT ?, COUNT(*) FROM messages WHERE ${where} HAVING COUNT(*) > 0`, key);
        bump("n:messages", "1 = 1");
        bump("n:visible_messages", "silent = 0");
        for (const d of [1, 2]) {
          bump(`n:messages@${d}`, `depth = ${d}`);
          bump(`n:visible_messages@${d}`, `depth = ${d} AND silent = 0`);
        }
        schemaBackTo(sql, COUNTERS);
      });
    });
    expect(Object.keys(await metaRows(id)).sort()).toEqual(["n:messages", "n:messages@1", "n:messages@2", "n:visible_messages", "n:visible_messages@1", "n:visible_messages@2"]);
    await evictDurableObject(rawStub(id));
    await expectExact(id);
    expect(await inThread(id, (i) => i.ctx.storage.sql.exec("SELECT version FROM weft_schema").one().version)).toBe(MIGRATIONS.length);
    expect(await metaRows(id)).toEqual({ "n:silent_messages": "12", "n:messages@1": "8", "n:silent_messages@1": "4", "n:messages@2": "8", "n:silent_messages@2": "4" });
    // It goes on from there.
    await appendRounds(id, 2, 4);
    await expectExact(id);
  });
});
