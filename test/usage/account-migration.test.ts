/**
 * An account made before the usage tables had their `unpriced` and user-paid columns: the account
 * Durable Object, started again on it, adds them (src/usage/account-ledger.ts
 * `migrateAccountUsage`), keeps the rows it had, and rolls new requests up beside them.
 */
import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { rollUp } from "../../src/usage/account-ledger.js";
import { freshUser, send } from "./users.js";

/** The three tables as the account made them before the columns were added (at commit 6431f19). */
const BEFORE = `
  CREATE TABLE usage_rollup (
    day TEXT NOT NULL, thread_id TEXT NOT NULL, agent_id TEXT NOT NULL, model TEXT NOT NULL,
    requests INTEGER NOT NULL, input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL, cached_tokens INTEGER NOT NULL,
    reasoning_tokens INTEGER NOT NULL, cache_write_tokens INTEGER NOT NULL, estimated INTEGER NOT NULL, duration_ms INTEGER NOT NULL,
    cost_micro_usd INTEGER NOT NULL,
    PRIMARY KEY (day, thread_id, model)
  ) WITHOUT ROWID;
  CREATE TABLE usage_turns (
    thread_id TEXT NOT NULL, turn_id TEXT NOT NULL, tokens INTEGER NOT NULL, cost_micro_usd INTEGER NOT NULL,
    PRIMARY KEY (thread_id, turn_id)
  ) WITHOUT ROWID;
  CREATE TABLE budget_reservations (
    id TEXT PRIMARY KEY, thread_id TEXT NOT NULL, agent_id TEXT NOT NULL, turn_id TEXT NOT NULL, instance TEXT NOT NULL,
    tokens INTEGER NOT NULL, cost_micro_usd INTEGER NOT NULL, expires_at INTEGER NOT NULL
  );
`;

const columns = (sql: SqlStorage, table: string) => sql.exec<{ name: string }>("SELECT name FROM pragma_table_info(?)", table).toArray().map((c) => c.name);

describe("an account made before the usage columns", () => {
  it("gets them when it starts again, keeps its rows, and rolls up new requests beside them", async () => {
    const user = await freshUser();
    const ns = (env as unknown as { ACCOUNT: DurableObjectNamespace }).ACCOUNT;
    const stub = ns.get(ns.idFromName(user.userId));
    const day = new Date().toISOString().slice(0, 10);
    await runInDurableObject(stub, (_account, state) => {
      const sql = state.storage.sql;
      sql.exec("DROP TABLE usage_rollup; DROP TABLE usage_turns; DROP TABLE budget_reservations; DROP TABLE usage_senders;");
      sql.exec(BEFORE);
      // The row count as kept before it said which thread made on the id it is of.
      sql.exec("CREATE TABLE usage_senders (thread_id TEXT PRIMARY KEY, last_row INTEGER NOT NULL) WITHOUT ROWID");
      sql.exec("INSERT INTO usage_senders VALUES ('thread_old', 2)");
      sql.exec("INSERT INTO usage_rollup VALUES (?, 'thread_old', 'support', 'openai:gpt-4.1-mini', 2, 100, 20, 0, 0, 0, 0, 50, 700)", day);
      sql.exec("INSERT INTO usage_turns VALUES ('thread_old', 'turn_old', 120, 700)");
      expect(columns(sql, "usage_rollup")).not.toContain("unpriced");
    });
    await evictDurableObject(stub);

    await runInDurableObject(stub, (_account, state) => {
      const sql = state.storage.sql;
      expect(columns(sql, "usage_rollup")).toEqual(expect.arrayContaining(["unpriced", "user_paid_tokens", "user_paid_cost"]));
      expect(columns(sql, "usage_turns")).toEqual(expect.arrayContaining(["user_paid_tokens", "user_paid_cost"]));
      expect(columns(sql, "budget_reservations")).toContain("user_paid");
      expect(columns(sql, "usage_senders")).toContain("created_at");
      // A rollup row's key names its agent now (review 21b); the old row is kept under it.
      const key = sql.exec<{ name: string }>("SELECT name FROM pragma_table_info('usage_rollup') WHERE pk > 0 ORDER BY pk").toArray().map((c) => c.name);
      expect(key).toEqual(["day", "thread_id", "agent_id", "model"]);
      expect(sql.exec("SELECT COUNT(*) AS n FROM sqlite_master WHERE name = 'usage_rollup_unkeyed'").one().n).toBe(0);
      // A request of a model with no price, paid by the user, on the same day, thread and model as the old row.
      rollUp(sql, {
        threadId: "thread_old", agentId: "support", turnId: "turn_new", model: "openai:gpt-4.1-mini", at: Date.now(), inputTokens: 10, outputTokens: 5,
        cachedInputTokens: 0, reasoningTokens: 0, cacheWriteTokens: 0, estimated: false, durationMs: 5, costMicroUsd: null, userPaid: true,
      });
    });
    const usage = await send(user.token, "GET", "/account/usage");
    expect(usage.status).toBe(200);
    expect(usage.body.total).toMatchObject({ requests: 3, inputTokens: 110, outputTokens: 25, costUsd: 0.0007, unpricedRequests: 1 });
    // The same day, thread and model under another agent (a thread made again on the id) is a row of its own.
    await runInDurableObject(stub, (_account, state) => {
      rollUp(state.storage.sql, {
        threadId: "thread_old", agentId: "billing", turnId: "turn_other", model: "openai:gpt-4.1-mini", at: Date.now(), inputTokens: 7, outputTokens: 1,
        cachedInputTokens: 0, reasoningTokens: 0, cacheWriteTokens: 0, estimated: false, durationMs: 5, costMicroUsd: 10,
      });
    });
    const byAgent = await send(user.token, "GET", "/account/usage?groupBy=agent");
    expect(byAgent.body.groups.map((g: { key: string; inputTokens: number }) => [g.key, g.inputTokens])).toEqual([["billing", 7], ["support", 110]]);
  });
});
