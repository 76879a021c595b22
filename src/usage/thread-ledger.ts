/**
 * The thread's usage ledger: one row per answered model request in the thread's SQLite
 * (`usage_requests`, a migration in src/thread/store/migrations.ts), read back rolled up per turn
 * and model, with the tool calls' durations and attempts read from the call journal (`calls`).
 * @module
 */
import type { ModelUsageRow } from "./row.js";
import type { ThreadUsage, ToolUsage } from "./reports.js";
import { SUM_COLUMNS, type TotalsRow, totalsOf } from "./totals.js";

/** The table's DDL (the thread's migration runs it). */
export const USAGE_REQUESTS_DDL = `
  CREATE TABLE IF NOT EXISTS usage_requests (
    id INTEGER PRIMARY KEY,
    turn_id TEXT NOT NULL,
    step INTEGER NOT NULL,
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    input_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    cached_tokens INTEGER NOT NULL,
    reasoning_tokens INTEGER NOT NULL,
    cache_write_tokens INTEGER NOT NULL,
    estimated INTEGER NOT NULL,
    duration_ms INTEGER NOT NULL,
    cost_micro_usd INTEGER NOT NULL,
    price_version TEXT NOT NULL,
    at INTEGER NOT NULL
  );
  CREATE INDEX IF NOT EXISTS usage_requests_by_turn ON usage_requests (turn_id);
`;

/** Marks the rows of requests that failed after they were sent (a later migration than the table's). */
export const USAGE_REQUESTS_FAILED_DDL = "ALTER TABLE usage_requests ADD COLUMN failed INTEGER NOT NULL DEFAULT 0;";

/**
 * Marks the rows of models with no price (`cost_micro_usd` 0 there; read back as a null cost), and
 * of requests the user paid for (their own key or endpoint).
 */
export const USAGE_REQUESTS_UNPRICED_DDL = `
  ALTER TABLE usage_requests ADD COLUMN unpriced INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE usage_requests ADD COLUMN user_paid INTEGER NOT NULL DEFAULT 0;
`;

/**
 * Drops the index of rows by turn (a later migration than the table's): no query seeks it, since
 * `GET /threads/:id/usage` reads every row whatever it groups by, and each request wrote it.
 */
export const USAGE_REQUESTS_UNINDEXED_DDL = "DROP INDEX IF EXISTS usage_requests_by_turn;";

/** Request rows `GET /threads/:id/usage` lists (the totals count every row). */
export const MAX_LISTED_REQUESTS = 500;

/** Writes and reads a thread's usage rows. */
export class ThreadUsageLedger {
  constructor(private readonly sql: SqlStorage) {}

  /** Records one model request, answered or failed; returns its row id (increasing in the thread). */
  record(row: ModelUsageRow): number {
    return this.sql.exec<{ id: number }>(
      `INSERT INTO usage_requests (turn_id, step, provider, model, input_tokens, output_tokens, cached_tokens, reasoning_tokens, cache_write_tokens,
        estimated, failed, duration_ms, cost_micro_usd, unpriced, user_paid, price_version, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
      row.turnId,
      row.step,
      row.provider,
      row.model,
      row.inputTokens,
      row.outputTokens,
      row.cachedInputTokens,
      row.reasoningTokens,
      row.cacheWriteTokens,
      row.estimated ? 1 : 0,
      row.failed ? 1 : 0,
      row.durationMs,
      row.costMicroUsd ?? 0,
      row.costMicroUsd === null ? 1 : 0,
      row.userPaid ? 1 : 0,
      row.priceVersion,
      row.at,
    ).one().id;
  }

  /** The rows after row id `after` and before `before`, oldest first, each with its row id (what the account has not rolled up). */
  between(after: number, before: number): Array<{ row: number; usage: ModelUsageRow }> {
    return this.sql
      .exec<RequestRow & { id: number }>("SELECT * FROM usage_requests WHERE id > ? AND id < ? ORDER BY id", after, before)
      .toArray()
      .map((r) => ({ row: r.id, usage: rowOf(r) }));
  }

  /** The thread's usage rolled up (see {@link ThreadUsage}). */
  read(threadId: string, agentId: string): ThreadUsage {
    const total = totalsOf(this.sql.exec<TotalsRow>(`SELECT ${SUM_COLUMNS} FROM usage_requests`).toArray()[0]);
    const tools = this.tools();
    const turnRows = this.sql.exec<TotalsRow & { turn_id: string }>(`SELECT turn_id, ${SUM_COLUMNS} FROM usage_requests GROUP BY turn_id ORDER BY MIN(id)`).toArray();
    const models = this.sql.exec<TotalsRow & { model: string }>(`SELECT model, ${SUM_COLUMNS} FROM usage_requests GROUP BY model ORDER BY model`).toArray();
    const requests = this.sql
      .exec<RequestRow>(`SELECT * FROM (SELECT * FROM usage_requests ORDER BY id DESC LIMIT ?) ORDER BY id`, MAX_LISTED_REQUESTS)
      .toArray()
      .map(rowOf);
    return {
      threadId,
      agentId,
      total: { ...total, tools: tools.get(null) ?? NO_TOOLS },
      turns: turnRows.map((r) => ({ turnId: r.turn_id, ...totalsOf(r), tools: tools.get(r.turn_id) ?? NO_TOOLS })),
      models: models.map((r) => ({ model: r.model, ...totalsOf(r) })),
      requests,
    };
  }

  /** Tool usage per turn, and of the whole thread under `null`. */
  private tools(): Map<string | null, ToolUsage> {
    const out = new Map<string | null, ToolUsage>();
    const rows = this.sql
      .exec<{ turn_id: string | null; calls: number; attempts: number; duration_ms: number }>(
        "SELECT turn_id, COUNT(*) AS calls, COALESCE(SUM(attempts), 0) AS attempts, COALESCE(SUM(duration_ms), 0) AS duration_ms FROM calls WHERE finished_at IS NOT NULL GROUP BY turn_id",
      )
      .toArray();
    const whole = { ...NO_TOOLS };
    for (const r of rows) {
      const t = { calls: r.calls, attempts: r.attempts, durationMs: Math.round(r.duration_ms) };
      if (r.turn_id !== null) out.set(r.turn_id, t);
      whole.calls += t.calls;
      whole.attempts += t.attempts;
      whole.durationMs += t.durationMs;
    }
    out.set(null, whole);
    return out;
  }
}

const NO_TOOLS: ToolUsage = { calls: 0, attempts: 0, durationMs: 0 };

/** One request's row: the summed columns of {@link TotalsRow} for one request (`estimated` 0 or 1), and where it belongs. */
type RequestRow = Omit<TotalsRow, "requests"> & {
  turn_id: string;
  step: number;
  provider: string;
  model: string;
  price_version: string;
  failed: number;
  user_paid: number;
  at: number;
};

function rowOf(r: RequestRow): ModelUsageRow {
  return {
    turnId: r.turn_id,
    step: r.step,
    provider: r.provider,
    model: r.model,
    inputTokens: r.input_tokens,
    outputTokens: r.output_tokens,
    cachedInputTokens: r.cached_tokens,
    reasoningTokens: r.reasoning_tokens,
    cacheWriteTokens: r.cache_write_tokens,
    estimated: r.estimated === 1,
    failed: r.failed === 1,
    durationMs: r.duration_ms,
    costMicroUsd: r.unpriced === 1 ? null : r.cost_micro_usd,
    priceVersion: r.price_version,
    userPaid: r.user_paid === 1,
    at: r.at,
  };
}
