/**
 * A batch of a thread's requests is rolled up in one upsert per rollup row (day, thread, model)
 * and one per turn, whatever its number of requests, and adds up exactly what rolling each request
 * up on its own adds up (estimated, unpriced and user-paid requests, two days, two models, a
 * charge taken back in between).
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { type SettledUsage, rollUp } from "../../src/usage/account-ledger.js";
import { freshUser, accountOfUser } from "./users.js";

const DAY = 86_400_000;
const at = Date.UTC(2026, 11, 1, 23, 0);

/** Twelve requests over two turns, two models and two UTC days, of every kind. */
const requests: SettledUsage[] = Array.from({ length: 12 }, (_, n) => ({
  threadId: "thread_batch",
  agentId: "metered",
  turnId: n < 7 ? "turn_a" : "turn_b",
  model: n % 3 === 0 ? "anthropic:claude-haiku-4-5" : "openai:gpt-4.1",
  inputTokens: 100 + n,
  outputTokens: 10 + n,
  cachedInputTokens: n,
  reasoningTokens: 2 * n,
  cacheWriteTokens: n % 2,
  estimated: n % 4 === 1,
  durationMs: 7 * n,
  costMicroUsd: n % 5 === 2 ? null : 1000 + n,
  userPaid: n % 6 === 3,
  at: at + (n % 2) * DAY,
}));

/** An account's rollup tables, whole. */
async function tables(userId: string, fill: (sql: SqlStorage) => void): Promise<{ rollup: unknown[]; turns: unknown[]; upserts: number }> {
  await accountOfUser(userId).usage({});
  const ns = (env as unknown as { ACCOUNT: DurableObjectNamespace }).ACCOUNT;
  return runInDurableObject(ns.get(ns.idFromName(userId)), (_account, state) => {
    const sql = state.storage.sql;
    let upserts = 0;
    const counting = { exec: (q: string, ...b: unknown[]) => (upserts++, sql.exec(q, ...(b as SqlStorageValue[]))) } as unknown as SqlStorage;
    state.storage.transactionSync(() => fill(counting));
    return {
      rollup: sql.exec("SELECT * FROM usage_rollup ORDER BY day, thread_id, model").toArray(),
      turns: sql.exec("SELECT * FROM usage_turns ORDER BY thread_id, turn_id").toArray(),
      upserts,
    };
  });
}

describe("rolling up a batch", () => {
  it("one upsert per rollup row and per turn; the same sums as one request at a time", async () => {
    const charge = { ...requests[4]!, cachedInputTokens: 0, reasoningTokens: 0, cacheWriteTokens: 0, estimated: true, durationMs: 0 };
    const one = await tables((await freshUser("rollup-one")).userId, (sql) => {
      rollUp(sql, charge);
      for (const u of requests) rollUp(sql, u);
      rollUp(sql, charge, -1);
    });
    const batch = await tables((await freshUser("rollup-batch")).userId, (sql) => {
      rollUp(sql, charge);
      rollUp(sql, requests);
      rollUp(sql, charge, -1);
    });
    expect(batch.rollup).toEqual(one.rollup);
    expect(batch.turns).toEqual(one.turns);
    // 2 days x 2 models, and 2 turns; the charge and its taking back, 2 each.
    expect(one.rollup).toHaveLength(4);
    expect(one.turns).toHaveLength(2);
    expect(batch.upserts).toBe(4 + 2 + 2 + 2);
    expect(one.upserts).toBe(2 * requests.length + 4);
    expect(one.rollup.reduce((n: number, r) => n + (r as { requests: number }).requests, 0)).toBe(12);
  });
});
