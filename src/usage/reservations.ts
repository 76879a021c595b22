/**
 * Budget reservations, in the user's account Durable Object: before a model request its maximum
 * (input counted, output bounded by the request's max tokens) is reserved against every budget
 * that applies, and refused if that would cross one; after it, the reservation is settled to the
 * actual use. Check and insert run in one synchronous stretch of the account's single thread, so
 * concurrent requests of one user (any number of threads) serialize here and never pass a limit.
 * A reservation that is never settled (its request was cut by a crash) is charged, not released,
 * when the same thread reserves again from a new instance, or at its lease's end by the account's
 * alarm (see {@link Reservations.charge}).
 *
 * A thread told that the user has no budgets of their own (`userBudgets: false`) is a watcher: it
 * stops reserving while its agent and deployment have no budget either. Before the user's first
 * budgets are stored, every watcher hands over its requests in flight (`handOver` in
 * src/usage/meter.ts), which are inserted here as reservations, and is no watcher any more.
 * @module
 */
import { type SettledUsage, rollUp, userBudgets } from "./account-ledger.js";
import { type NamedBudget, isDeploymentBudget } from "./budgets.js";
import { dayOf } from "./totals.js";

/** A request's maximum, to reserve. `costMicroUsd` is millionths of a dollar. */
export interface ReserveRequest {
  /** Unique per request. */
  id: string;
  threadId: string;
  agentId: string;
  turnId: string;
  /** The thread instance making it: a reservation of another instance of the same thread was cut by a crash. */
  instance: string;
  /** `"<provider>:<model id>"`: where its charge is rolled up if a crash cuts it. */
  model: string;
  /** Input and output together. */
  tokens: number;
  /** The input part of `tokens` (its input bound). */
  inputTokens: number;
  costMicroUsd: number;
  /** The model has no price in the price table: a cost budget cannot be held for it, so one refuses it. */
  unpriced?: boolean;
  /** The user pays for it: the deployment's budgets do not count it (and were not sent for it). */
  userPaid?: boolean;
  /** When the reservation is charged (see `Reservations.charge`) if never settled, epoch ms. */
  expiresAt: number;
  /** The agent's and the deployment's budgets; the user's own are added here. */
  budgets: NamedBudget[];
}

/** Why a reservation was refused: the budget, its limit and what is used of it (settled and reserved), in its unit. */
export interface BudgetRefusal {
  budget: NamedBudget;
  /** `tokens`, or `costUsd` (then `limit`, `used` and `requested` are dollars). */
  measure: "tokens" | "costUsd";
  /** A cost budget refused a model that has no price (`WEFT_PRICES` can give it one). */
  unpriced?: true;
  limit: number;
  used: number;
  /** What the refused request would have reserved. */
  requested: number;
}

/** The answer to a reservation. */
export type ReserveAnswer =
  | {
      reserved: true;
      /** How many budgets applied. */
      budgets: number;
      /** Whether the user has budgets of their own; false: the thread is a watcher, told before the user's first budgets hold. */
      userBudgets: boolean;
    }
  | { reserved: false; refusal: BudgetRefusal };

/**
 * One answered request sent to the account: its row in the thread's ledger (`row`, the ledger's
 * row id, increasing in the thread) and the reservation it settles, if it made one.
 */
export type SettledRow = Omit<SettledUsage, "threadId" | "agentId"> & {
  row: number;
  /** The reservation's id; an unknown one (released already) only records the usage. */
  reservation?: string;
};

/**
 * A thread's answered requests, in the order of its ledger: rows `fromRow` and on (`rows` holds
 * them all, any sent already are skipped), each settling its reservation and rolled up.
 */
export interface SettleBatch {
  threadId: string;
  agentId: string;
  /**
   * When the sending thread was created (epoch ms). A thread made again on a deleted thread's id
   * numbers its rows from 1 again: a batch from a thread created later than the one the account
   * counts for the id starts a new count, and one from a thread created earlier (a deleted
   * thread's late rows) is dropped. Absent from meters older than it: the count goes on, and
   * whose it is becomes unknown; a batch that says continues such a count when it starts past its
   * rows, and starts a new one when it starts at rows the account has.
   */
  createdAt?: number;
  fromRow: number;
  rows: SettledRow[];
}

/** The answer to a batch: `behind` is the last row the account has when rows before `fromRow` never arrived (the batch is not applied). */
export interface SettleAnswer {
  behind: number | null;
}

/** How long a crash-cut reservation's charge stays replaceable by its request's own row, ms. */
const CHARGE_KEPT_MS = 86_400_000;

/** The account side of budgets, over the account's SQLite. */
export class Reservations {
  constructor(
    private readonly sql: SqlStorage,
    private readonly transaction: (fn: () => void) => void,
  ) {}

  /**
   * Reserves, or refuses naming the first budget it would cross (a refused request reserves
   * nothing). `settingBudgets`: the user's first budgets are being stored, so no thread may be
   * told there are none.
   */
  reserve(r: ReserveRequest, now = Date.now(), settingBudgets = false): ReserveAnswer {
    // A reservation of an earlier instance of this thread belongs to a request a crash cut.
    this.charge("thread_id = ? AND instance != ?", [r.threadId, r.instance], now);
    this.releaseExpired(now);
    const own = userBudgets(this.sql);
    const all = [...r.budgets, ...own.map((b, i) => ({ ...b, id: `user#${i}` }))];
    const budgets = all.filter((b) => b.scope !== "agent" || b.agent === undefined || b.agent === r.agentId);
    for (const budget of budgets) {
      const used = this.used(budget, r, now);
      if (budget.tokens !== undefined && used.tokens + r.tokens > budget.tokens) {
        return { reserved: false, refusal: { budget, measure: "tokens", limit: budget.tokens, used: used.tokens, requested: r.tokens } };
      }
      // An unpriced model would count as free: the budget refuses it rather than stop being a ceiling.
      if (budget.costUsd !== undefined && r.unpriced) {
        return { reserved: false, refusal: { budget, measure: "costUsd", limit: budget.costUsd, used: used.cost / 1e6, requested: 0, unpriced: true } };
      }
      if (budget.costUsd !== undefined && used.cost + r.costMicroUsd > Math.floor(budget.costUsd * 1e6)) {
        return { reserved: false, refusal: { budget, measure: "costUsd", limit: budget.costUsd, used: used.cost / 1e6, requested: r.costMicroUsd / 1e6 } };
      }
    }
    this.insert(r);
    const has = own.length > 0 || settingBudgets;
    if (!has) this.sql.exec("INSERT OR IGNORE INTO budget_watchers (thread_id) VALUES (?)", r.threadId);
    return { reserved: true, budgets: budgets.length, userBudgets: has };
  }

  /** The threads told that the user has no budgets of their own. */
  watchers(): string[] {
    return this.sql.exec<{ thread_id: string }>("SELECT thread_id FROM budget_watchers").toArray().map((w) => w.thread_id);
  }

  /** Reserves what the watchers handed over and forgets them, in one transaction (then the user's budgets may be stored). */
  handedOver(watchers: readonly string[], requests: readonly ReserveRequest[]): void {
    this.transaction(() => {
      for (const r of requests) this.insert(r);
      for (const id of watchers) this.sql.exec("DELETE FROM budget_watchers WHERE thread_id = ?", id);
    });
  }

  private insert(r: ReserveRequest): void {
    this.sql.exec(
      "INSERT OR IGNORE INTO budget_reservations (id, thread_id, agent_id, turn_id, instance, tokens, cost_micro_usd, expires_at, user_paid, model, input_tokens, unpriced) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      r.id,
      r.threadId,
      r.agentId,
      r.turnId,
      r.instance,
      r.tokens,
      r.costMicroUsd,
      r.expiresAt,
      r.userPaid ? 1 : 0,
      r.model,
      Math.min(r.inputTokens, r.tokens),
      r.unpriced ? 1 : 0,
    );
  }

  /**
   * Charges the reservations matching \`where\` (their request never settled: a crash cut it, or its
   * lease ended) and deletes them: each is rolled up as one request of its reservation's input and
   * output bounds, marked estimated, so that the room it held is not handed to another request.
   *
   * Why the output bound too, not the input alone: a request cut mid-stream reached the provider,
   * which bills the input and the output it generated before the cut; weft never saw that output
   * (the instance that read it is gone), and only the bound it reserved is sure to cover it.
   * Charging the input alone would let each crash spend up to its output bound past the ceiling.
   * The cost is an over-charge of what the cut request did not generate (and the whole reservation
   * of one a crash cut before it was sent): the ceiling errs on the side of holding.
   *
   * If the request's own row arrives later (a slow request past its lease), it replaces the charge
   * (see {@link settle}); a row the thread re-sends from its ledger after a crash names no
   * reservation, so in that narrow case both count (an over-charge, never an under-charge).
   */
  private charge(where: string, args: (string | number)[], now: number): void {
    const cut = this.sql
      .exec<{ id: string; thread_id: string; agent_id: string; turn_id: string; model: string; tokens: number; input_tokens: number | null; cost_micro_usd: number; user_paid: number; unpriced: number }>(
        `SELECT id, thread_id, agent_id, turn_id, model, tokens, input_tokens, cost_micro_usd, user_paid, unpriced FROM budget_reservations WHERE ${where}`,
        ...args,
      )
      .toArray();
    if (cut.length === 0) return;
    this.transaction(() => {
      for (const c of cut) {
        const usage = {
          threadId: c.thread_id,
          agentId: c.agent_id,
          turnId: c.turn_id,
          model: c.model,
          // A reservation stored before the split was kept is charged whole, as input.
          inputTokens: c.input_tokens ?? c.tokens,
          outputTokens: c.tokens - (c.input_tokens ?? c.tokens),
          cachedInputTokens: 0,
          reasoningTokens: 0,
          cacheWriteTokens: 0,
          estimated: true,
          durationMs: 0,
          costMicroUsd: c.unpriced ? null : c.cost_micro_usd,
          userPaid: c.user_paid === 1,
          at: now,
        };
        rollUp(this.sql, usage);
        this.sql.exec(
          "INSERT OR REPLACE INTO budget_cut (id, thread_id, agent_id, turn_id, model, input_tokens, output_tokens, cost_micro_usd, user_paid, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
          c.id,
          c.thread_id,
          c.agent_id,
          c.turn_id,
          c.model,
          usage.inputTokens,
          usage.outputTokens,
          usage.costMicroUsd,
          c.user_paid,
          now,
        );
        this.sql.exec("DELETE FROM budget_reservations WHERE id = ?", c.id);
      }
    });
  }

  /** Takes back the charge of reservation \`id\` (its request's own row, or its release, came after all). */
  private uncharge(id: string): void {
    const c = this.sql
      .exec<{ thread_id: string; agent_id: string; turn_id: string; model: string; input_tokens: number; output_tokens: number; cost_micro_usd: number | null; user_paid: number; at: number }>(
        "SELECT thread_id, agent_id, turn_id, model, input_tokens, output_tokens, cost_micro_usd, user_paid, at FROM budget_cut WHERE id = ?",
        id,
      )
      .toArray()[0];
    if (!c) return;
    const usage = { threadId: c.thread_id, agentId: c.agent_id, turnId: c.turn_id, model: c.model, inputTokens: c.input_tokens, outputTokens: c.output_tokens };
    rollUp(this.sql, { ...usage, cachedInputTokens: 0, reasoningTokens: 0, cacheWriteTokens: 0, estimated: true, durationMs: 0, costMicroUsd: c.cost_micro_usd, userPaid: c.user_paid === 1, at: c.at }, -1);
    this.sql.exec("DELETE FROM budget_cut WHERE id = ?", id);
  }

  /**
   * Replaces each row's reservation by the request's actual use and rolls it up, in one
   * transaction; a row the account has already is skipped, so a batch sent twice counts once. A
   * batch that starts past the thread's next row (rows a crash kept from being sent) is not
   * applied: the answer names the last row the account has, and the thread sends from there.
   */
  settle(batch: SettleBatch): SettleAnswer {
    let behind: number | null = null;
    this.transaction(() => {
      const kept = this.sql.exec<{ last_row: number; created_at: number | null }>("SELECT last_row, created_at FROM usage_senders WHERE thread_id = ?", batch.threadId).toArray()[0];
      const made = batch.createdAt;
      let last: number;
      if (!kept) last = this.firstRowOf(batch);
      // The same thread's count goes on: a batch that does not say (old code), or one of the thread
      // the count is of; under a count that does not say, one that starts past the rows it has.
      else if (made === undefined || made === kept.created_at || (kept.created_at === null && batch.fromRow > kept.last_row)) last = kept.last_row;
      // A deleted thread's late rows: the id's count is a later thread's now.
      else if (kept.created_at !== null && made < kept.created_at) return;
      // A thread made later on the id numbers its rows from 1 again.
      else last = 0;
      if (batch.fromRow > last + 1) {
        behind = last;
        return;
      }
      let top = last;
      const rows: SettledUsage[] = [];
      for (const r of batch.rows) {
        if (r.row <= top) continue;
        if (r.reservation !== undefined) {
          this.sql.exec("DELETE FROM budget_reservations WHERE id = ?", r.reservation);
          this.uncharge(r.reservation);
        }
        rows.push({ ...r, threadId: batch.threadId, agentId: batch.agentId });
        top = r.row;
      }
      // Summed per rollup row and per turn: one upsert each, however many requests the batch holds.
      rollUp(this.sql, rows);
      // A batch that does not say leaves the count's thread unknown: old code may serve a later one.
      const of = made ?? null;
      if (top > last || (kept !== undefined && kept.created_at !== of)) {
        this.sql.exec("INSERT OR REPLACE INTO usage_senders (thread_id, last_row, created_at) VALUES (?, ?, ?)", batch.threadId, Math.max(top, last), of);
      }
    });
    return { behind };
  }

  /**
   * The last row the account has of a thread it keeps no row count for: none (0), unless its usage
   * was rolled up before rows were counted (one settle per request): then every row before the
   * batch is taken as sent, so none counts twice (one that a crash lost then stays lost, as it was).
   */
  private firstRowOf(batch: SettleBatch): number {
    if (batch.fromRow <= 1) return 0;
    const earlier = this.sql.exec("SELECT 1 FROM usage_rollup WHERE thread_id = ? LIMIT 1", batch.threadId).toArray().length > 0;
    return earlier ? batch.fromRow - 1 : 0;
  }

  /** Releases a reservation whose request was never sent (charged already if its lease ended: the charge is taken back). */
  release(id: string): void {
    this.transaction(() => {
      this.sql.exec("DELETE FROM budget_reservations WHERE id = ?", id);
      this.uncharge(id);
    });
  }

  /** Charges every reservation past its lease (see {@link charge}); returns the earliest lease still open, if any. */
  releaseExpired(now = Date.now()): number | undefined {
    this.charge("expires_at <= ?", [now], now);
    // A charge is kept to be taken back while its request's row may still come (a lease is minutes).
    this.sql.exec("DELETE FROM budget_cut WHERE at <= ?", now - CHARGE_KEPT_MS);
    return this.sql.exec<{ next: number | null }>("SELECT MIN(expires_at) AS next FROM budget_reservations").one().next ?? undefined;
  }

  /** Reservations open now. */
  open(): number {
    return this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM budget_reservations").one().n;
  }

  /**
   * What counts against `budget` for request `r`: settled use in its period and scope, plus open
   * reservations there; for a deployment budget, only what the deployment pays for.
   */
  private used(budget: NamedBudget, r: ReserveRequest, now: number): { tokens: number; cost: number } {
    const deployment = isDeploymentBudget(budget);
    const userPaidTokens = deployment ? " - user_paid_tokens" : "";
    const userPaidCost = deployment ? " - user_paid_cost" : "";
    const where: string[] = [];
    const args: (string | number)[] = [];
    if (budget.scope === "thread") where.push("thread_id = ?"), args.push(r.threadId);
    if (budget.scope === "agent") where.push("agent_id = ?"), args.push(budget.agent ?? r.agentId);
    const scoped = where.length > 0 ? ` AND ${where.join(" AND ")}` : "";
    let settled: { tokens: number; cost: number };
    if (budget.period === "turn") {
      settled = this.sql
        .exec<{ tokens: number; cost: number }>(
          `SELECT COALESCE(SUM(tokens${userPaidTokens}), 0) AS tokens, COALESCE(SUM(cost_micro_usd${userPaidCost}), 0) AS cost FROM usage_turns WHERE thread_id = ? AND turn_id = ?`,
          r.threadId,
          r.turnId,
        )
        .one();
    } else {
      const day = dayOf(now);
      const period = budget.period === "day" ? " AND day = ?" : budget.period === "month" ? " AND substr(day, 1, 7) = ?" : "";
      const periodArgs = budget.period === "day" ? [day] : budget.period === "month" ? [day.slice(0, 7)] : [];
      settled = this.sql
        .exec<{ tokens: number; cost: number }>(
          `SELECT COALESCE(SUM(input_tokens + output_tokens${userPaidTokens}), 0) AS tokens, COALESCE(SUM(cost_micro_usd${userPaidCost}), 0) AS cost FROM usage_rollup WHERE 1 = 1${scoped}${period}`,
          ...args,
          ...periodArgs,
        )
        .one();
    }
    const turnOnly = budget.period === "turn" ? " AND thread_id = ? AND turn_id = ?" : "";
    const reserved = this.sql
      .exec<{ tokens: number; cost: number }>(
        `SELECT COALESCE(SUM(tokens), 0) AS tokens, COALESCE(SUM(cost_micro_usd), 0) AS cost FROM budget_reservations WHERE 1 = 1${scoped}${turnOnly}${deployment ? " AND user_paid = 0" : ""}`,
        ...args,
        ...(budget.period === "turn" ? [r.threadId, r.turnId] : []),
      )
      .one();
    return { tokens: settled.tokens + reserved.tokens, cost: settled.cost + reserved.cost };
  }
}
