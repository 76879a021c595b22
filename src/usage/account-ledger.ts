/**
 * The user's usage in their account Durable Object: request usage rolled up per UTC day, thread,
 * agent and model (what `GET /account/usage` reads and what day, month and lifetime budgets count),
 * per turn (what turn budgets count), and the budgets the user set.
 * @module
 */
import { WeftError } from "../errors.js";
import { NOT_A_CURSOR, pageSize, pageWithin } from "../limits.js";
import type { Budget } from "./budgets.js";
import type { ModelUsageRow } from "./row.js";
import type { AccountUsage, AccountUsageQuery, UsageGroupBy } from "./reports.js";
import { type TotalsRow, dayOf, sumColumns, totalsOf } from "./totals.js";

/** The account's usage tables. */
export const ACCOUNT_USAGE_SCHEMA = `
  CREATE TABLE IF NOT EXISTS usage_rollup (
    day TEXT NOT NULL, thread_id TEXT NOT NULL, agent_id TEXT NOT NULL, model TEXT NOT NULL,
    requests INTEGER NOT NULL, input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL, cached_tokens INTEGER NOT NULL,
    reasoning_tokens INTEGER NOT NULL, cache_write_tokens INTEGER NOT NULL, estimated INTEGER NOT NULL, duration_ms INTEGER NOT NULL,
    cost_micro_usd INTEGER NOT NULL, unpriced INTEGER NOT NULL DEFAULT 0,
    user_paid_tokens INTEGER NOT NULL DEFAULT 0, user_paid_cost INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (day, thread_id, agent_id, model)
  ) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS usage_turns (
    thread_id TEXT NOT NULL, turn_id TEXT NOT NULL, tokens INTEGER NOT NULL, cost_micro_usd INTEGER NOT NULL,
    user_paid_tokens INTEGER NOT NULL DEFAULT 0, user_paid_cost INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (thread_id, turn_id)
  ) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS budget_reservations (
    id TEXT PRIMARY KEY, thread_id TEXT NOT NULL, agent_id TEXT NOT NULL, turn_id TEXT NOT NULL, instance TEXT NOT NULL,
    tokens INTEGER NOT NULL, cost_micro_usd INTEGER NOT NULL, expires_at INTEGER NOT NULL, user_paid INTEGER NOT NULL DEFAULT 0,
    model TEXT NOT NULL DEFAULT '', input_tokens INTEGER, unpriced INTEGER NOT NULL DEFAULT 0
  );
  CREATE TABLE IF NOT EXISTS budget_cut (
    id TEXT PRIMARY KEY, thread_id TEXT NOT NULL, agent_id TEXT NOT NULL, turn_id TEXT NOT NULL, model TEXT NOT NULL,
    input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL, cost_micro_usd INTEGER, user_paid INTEGER NOT NULL, at INTEGER NOT NULL
  );
  CREATE TABLE IF NOT EXISTS account_budgets (id INTEGER PRIMARY KEY CHECK (id = 1), budgets TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS budget_watchers (thread_id TEXT PRIMARY KEY) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS usage_senders (thread_id TEXT PRIMARY KEY, last_row INTEGER NOT NULL, created_at INTEGER) WITHOUT ROWID;
`;

/** Brings an account's usage tables made before a column was added up to {@link ACCOUNT_USAGE_SCHEMA} (run after it). */
export function migrateAccountUsage(sql: SqlStorage): void {
  const has = (table: string, column: string) => sql.exec("SELECT 1 FROM pragma_table_info(?) WHERE name = ?", table, column).toArray().length > 0;
  // Requests of models with no price, per rollup row (their cost is unknown, not 0).
  if (!has("usage_rollup", "unpriced")) sql.exec("ALTER TABLE usage_rollup ADD COLUMN unpriced INTEGER NOT NULL DEFAULT 0");
  // What the user paid for (their own key or endpoint), which the deployment's budgets do not count; before, none.
  for (const table of ["usage_rollup", "usage_turns"]) {
    if (has(table, "user_paid_tokens")) continue;
    sql.exec(`ALTER TABLE ${table} ADD COLUMN user_paid_tokens INTEGER NOT NULL DEFAULT 0`);
    sql.exec(`ALTER TABLE ${table} ADD COLUMN user_paid_cost INTEGER NOT NULL DEFAULT 0`);
  }
  // Which thread made on the id the count is of (see \`SettleBatch.createdAt\`); before, not known.
  if (!has("usage_senders", "created_at")) sql.exec("ALTER TABLE usage_senders ADD COLUMN created_at INTEGER");
  if (!has("budget_reservations", "user_paid")) sql.exec("ALTER TABLE budget_reservations ADD COLUMN user_paid INTEGER NOT NULL DEFAULT 0");
  // What a reservation cut by a crash is charged as (see \`Reservations.charge\`); an older one is charged whole, as input.
  if (!has("budget_reservations", "model")) {
    sql.exec("ALTER TABLE budget_reservations ADD COLUMN model TEXT NOT NULL DEFAULT ''");
    sql.exec("ALTER TABLE budget_reservations ADD COLUMN input_tokens INTEGER");
    sql.exec("ALTER TABLE budget_reservations ADD COLUMN unpriced INTEGER NOT NULL DEFAULT 0");
  }
  // A rollup row is keyed by its agent too: a thread made again on a deleted one's id (its
  // continuation token) may run another agent, whose usage an agent's budget must count. Rebuilt
  // (SQLite cannot change a key in place) in this one synchronous step, so it commits whole.
  const keyed = sql.exec<{ pk: number }>("SELECT pk FROM pragma_table_info('usage_rollup') WHERE name = 'agent_id'").one().pk > 0;
  if (!keyed) {
    const columns = sql.exec<{ name: string }>("SELECT name FROM pragma_table_info('usage_rollup')").toArray().map((c) => c.name).join(", ");
    sql.exec("ALTER TABLE usage_rollup RENAME TO usage_rollup_unkeyed");
    sql.exec(ACCOUNT_USAGE_SCHEMA);
    sql.exec(`INSERT INTO usage_rollup (${columns}) SELECT ${columns} FROM usage_rollup_unkeyed`);
    sql.exec("DROP TABLE usage_rollup_unkeyed");
  }
}

/**
 * One request (answered, or failed after it was sent: both are charged) as the account rolls it up:
 * the thread's ledger row (its day is the UTC day of `at`), with where it ran.
 */
export type SettledUsage = Omit<ModelUsageRow, "step" | "provider" | "priceVersion" | "failed" | "userPaid"> & {
  /** Paid by the user; absent: by the deployment (a row from a thread older than the flag). */
  userPaid?: boolean;
  threadId: string;
  agentId: string;
};

/**
 * Adds requests' usage to the rollups (one transaction with the caller's other writes): one
 * upsert per rollup row and per turn they fall in, whatever their number (a batch of a thread's
 * requests on one day and model writes one `usage_rollup` row). `sign` -1 takes back usage added
 * before (a crash-cut charge its request's own row replaces).
 */
export function rollUp(sql: SqlStorage, usage: SettledUsage | readonly SettledUsage[], sign: 1 | -1 = 1): void {
  const rollups = new Map<string, { first: SettledUsage; sums: Sums }>();
  const turns = new Map<string, { first: SettledUsage; sums: Sums }>();
  for (const u of Array.isArray(usage) ? (usage as readonly SettledUsage[]) : [usage as SettledUsage]) {
    for (const [groups, key] of [[rollups, JSON.stringify([dayOf(u.at), u.threadId, u.agentId, u.model])], [turns, JSON.stringify([u.threadId, u.turnId])]] as const) {
      const group = groups.get(key) ?? groups.set(key, { first: u, sums: { ...NO_SUMS } }).get(key)!;
      add(group.sums, u, sign);
    }
  }
  for (const { first: u, sums: t } of rollups.values()) {
    sql.exec(
      `INSERT INTO usage_rollup (day, thread_id, agent_id, model, requests, input_tokens, output_tokens, cached_tokens, reasoning_tokens,
         cache_write_tokens, estimated, duration_ms, cost_micro_usd, unpriced, user_paid_tokens, user_paid_cost) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (day, thread_id, agent_id, model) DO UPDATE SET requests = requests + excluded.requests, input_tokens = input_tokens + excluded.input_tokens,
         output_tokens = output_tokens + excluded.output_tokens, cached_tokens = cached_tokens + excluded.cached_tokens,
         reasoning_tokens = reasoning_tokens + excluded.reasoning_tokens, cache_write_tokens = cache_write_tokens + excluded.cache_write_tokens,
         estimated = estimated + excluded.estimated, duration_ms = duration_ms + excluded.duration_ms, cost_micro_usd = cost_micro_usd + excluded.cost_micro_usd,
         unpriced = unpriced + excluded.unpriced, user_paid_tokens = user_paid_tokens + excluded.user_paid_tokens,
         user_paid_cost = user_paid_cost + excluded.user_paid_cost`,
      dayOf(u.at),
      u.threadId,
      u.agentId,
      u.model,
      t.requests,
      t.inputTokens,
      t.outputTokens,
      t.cachedInputTokens,
      t.reasoningTokens,
      t.cacheWriteTokens,
      t.estimated,
      t.durationMs,
      t.costMicroUsd,
      t.unpriced,
      t.userPaidTokens,
      t.userPaidCost,
    );
  }
  for (const { first: u, sums: t } of turns.values()) {
    sql.exec(
      `INSERT INTO usage_turns (thread_id, turn_id, tokens, cost_micro_usd, user_paid_tokens, user_paid_cost) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (thread_id, turn_id) DO UPDATE SET tokens = tokens + excluded.tokens, cost_micro_usd = cost_micro_usd + excluded.cost_micro_usd,
         user_paid_tokens = user_paid_tokens + excluded.user_paid_tokens, user_paid_cost = user_paid_cost + excluded.user_paid_cost`,
      u.threadId,
      u.turnId,
      t.inputTokens + t.outputTokens,
      // A cost budget refuses an unpriced model's requests before they are sent: none is counted here.
      t.costMicroUsd,
      t.userPaidTokens,
      t.userPaidCost,
    );
  }
}

/** What one rollup row (or one turn's row) adds up, signed: every sum starts at 0. */
const NO_SUMS = {
  requests: 0,
  inputTokens: 0,
  outputTokens: 0,
  cachedInputTokens: 0,
  reasoningTokens: 0,
  cacheWriteTokens: 0,
  estimated: 0,
  durationMs: 0,
  costMicroUsd: 0,
  unpriced: 0,
  userPaidTokens: 0,
  userPaidCost: 0,
};

type Sums = { -readonly [K in keyof typeof NO_SUMS]: number };

/** Adds request `u` to `sums`, times `sign`. */
function add(sums: Sums, u: SettledUsage, sign: 1 | -1): void {
  sums.requests += sign;
  sums.inputTokens += sign * u.inputTokens;
  sums.outputTokens += sign * u.outputTokens;
  sums.cachedInputTokens += sign * u.cachedInputTokens;
  sums.reasoningTokens += sign * u.reasoningTokens;
  sums.cacheWriteTokens += sign * u.cacheWriteTokens;
  sums.estimated += sign * (u.estimated ? 1 : 0);
  sums.durationMs += sign * u.durationMs;
  sums.costMicroUsd += sign * (u.costMicroUsd ?? 0);
  sums.unpriced += sign * (u.costMicroUsd === null ? 1 : 0);
  sums.userPaidTokens += sign * (u.userPaid ? u.inputTokens + u.outputTokens : 0);
  sums.userPaidCost += sign * (u.userPaid ? (u.costMicroUsd ?? 0) : 0);
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** Whether `value` is a day of the calendar as YYYY-MM-DD (2026-02-30 is not: `Date` would roll it over to March). */
function isDay(value: string): boolean {
  return DAY.test(value) && !Number.isNaN(Date.parse(value)) && new Date(`${value}T00:00:00Z`).toISOString().slice(0, 10) === value;
}

/**
 * The user's usage over `from`..`to` (UTC days, `YYYY-MM-DD`, inclusive; default the last 30
 * days up to today): the total over every group, and a page of groups by `groupBy` (default
 * `day`) in key order, at most `limit` and 4 MiB of JSON (`PAGE_BYTES`), after `cursor`.
 * `nextCursor` (the grouping and the page's last key) asks for the next page, null on the last. Only the page's
 * groups (one more, to know) leave SQLite.
 * @throws WeftError `invalid_request` naming `from`, `to`, `groupBy`, `limit` or `cursor` when one is malformed or
 * names a day that does not exist, and naming `from` when it is later than `to`.
 */
export function readAccountUsage(sql: SqlStorage, query: AccountUsageQuery, now = Date.now()): AccountUsage {
  const to = query.to ?? dayOf(now);
  const from = query.from ?? dayOf(now - 29 * 86_400_000);
  for (const [key, value] of [["from", from], ["to", to]] as const) {
    if (!isDay(value)) throw new WeftError("invalid_request", `${key}: expected a UTC day that exists, as YYYY-MM-DD`, { path: [key] });
  }
  if (from > to) throw new WeftError("invalid_request", `from: ${from} is later than to (${to})`, { path: ["from"] });
  const groupBy = (query.groupBy ?? "day") as UsageGroupBy;
  if (!["agent", "model", "day"].includes(groupBy)) throw new WeftError("invalid_request", "groupBy: expected agent, model or day", { path: ["groupBy"] });
  const limit = pageSize("usageGroups", query.limit);
  const column = groupBy === "agent" ? "agent_id" : groupBy;
  const sums = sumColumns("SUM(requests)");
  const total = sql.exec<TotalsRow>(`SELECT ${sums} FROM usage_rollup WHERE day >= ? AND day <= ?`, from, to).toArray()[0];
  const after = query.cursor === undefined ? { where: "", bind: [] } : { where: ` AND ${column} > ?`, bind: [groupAfter(query.cursor, groupBy)] };
  const groups = sql.exec<TotalsRow & { key: string }>(
    `SELECT ${column} AS key, ${sums} FROM usage_rollup WHERE day >= ? AND day <= ?${after.where} GROUP BY ${column} ORDER BY ${column} LIMIT ?`,
    from,
    to,
    ...after.bind,
    limit + 1,
  );
  const page = pageWithin(groups, limit, (g) => ({ key: g.key, ...totalsOf(g) }));
  return { from, to, groupBy, total: totalsOf(total), groups: page.items, nextCursor: page.more ? `${groupBy}:${page.items.at(-1)!.key}` : null };
}

/**
 * The key a usage page's `cursor` (`<groupBy>:<last key>`) goes on after: a cursor is refused for
 * another grouping, whose keys it would skip at random.
 * @throws WeftError `invalid_request` naming `cursor` when it is not a cursor of `groupBy`.
 */
function groupAfter(cursor: string, groupBy: UsageGroupBy): string {
  if (cursor.startsWith(`${groupBy}:`)) return cursor.slice(groupBy.length + 1);
  throw new WeftError("invalid_request", `cursor: ${NOT_A_CURSOR} of groupBy=${groupBy}`, { path: ["cursor"] });
}

/** The budgets the user set on their account (none until set). */
export function userBudgets(sql: SqlStorage): Budget[] {
  const row = sql.exec<{ budgets: string }>("SELECT budgets FROM account_budgets WHERE id = 1").toArray()[0];
  return row ? (JSON.parse(row.budgets) as Budget[]) : [];
}

/** Replaces the user's own budgets (checked by the caller). */
export function setUserBudgets(sql: SqlStorage, budgets: readonly Budget[]): void {
  sql.exec("INSERT OR REPLACE INTO account_budgets (id, budgets) VALUES (1, ?)", JSON.stringify(budgets));
}
