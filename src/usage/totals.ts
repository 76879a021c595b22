/**
 * Usage totals: the sums a ledger's rows roll up to (per turn, thread, agent, model, user, day),
 * and the SQL that sums them, shared by the thread's ledger and the account's rollup.
 * @module
 */
import type { TokenUsage } from "../protocol.js";

/** Sums of model requests. Tokens are whole tokens; `costUsd` is dollars (summed exactly in micro-USD). */
export interface UsageTotals {
  requests: number;
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  reasoningTokens: number;
  cacheWriteTokens: number;
  /** Requests whose counts are weft's estimate (the provider reported none). */
  estimatedRequests: number;
  /** Time spent in model requests, milliseconds. */
  durationMs: number;
  /** Dollars at the price table in force when each request was recorded; requests of an unpriced model are not in it. */
  costUsd: number;
  /** Requests of a model with no price: their cost is unknown, so `costUsd` is the cost of the others only. */
  unpricedRequests: number;
}

/**
 * The SELECT list summing a table with the ledger's column names into {@link TotalsRow} columns;
 * `requests` counts rows, or sums a `requests` column where rows are already rolled up.
 */
export const sumColumns = (requests: "COUNT(*)" | "SUM(requests)") => `COALESCE(${requests}, 0) AS requests, COALESCE(SUM(input_tokens), 0) AS input_tokens, COALESCE(SUM(output_tokens), 0) AS output_tokens,
  COALESCE(SUM(cached_tokens), 0) AS cached_tokens, COALESCE(SUM(reasoning_tokens), 0) AS reasoning_tokens,
  COALESCE(SUM(cache_write_tokens), 0) AS cache_write_tokens, COALESCE(SUM(estimated), 0) AS estimated,
  COALESCE(SUM(duration_ms), 0) AS duration_ms, COALESCE(SUM(cost_micro_usd), 0) AS cost_micro_usd, COALESCE(SUM(unpriced), 0) AS unpriced`;

/** The sums of request rows (one row per request). */
export const SUM_COLUMNS = sumColumns("COUNT(*)");

/** A row of {@link sumColumns}. */
export type TotalsRow = {
  requests: number;
  input_tokens: number;
  output_tokens: number;
  cached_tokens: number;
  reasoning_tokens: number;
  cache_write_tokens: number;
  estimated: number;
  duration_ms: number;
  cost_micro_usd: number;
  unpriced: number;
};

/** A {@link TotalsRow} as {@link UsageTotals}. */
export function totalsOf(row: TotalsRow | undefined): UsageTotals {
  return {
    requests: row?.requests ?? 0,
    inputTokens: row?.input_tokens ?? 0,
    outputTokens: row?.output_tokens ?? 0,
    cachedInputTokens: row?.cached_tokens ?? 0,
    reasoningTokens: row?.reasoning_tokens ?? 0,
    cacheWriteTokens: row?.cache_write_tokens ?? 0,
    estimatedRequests: row?.estimated ?? 0,
    durationMs: row?.duration_ms ?? 0,
    costUsd: (row?.cost_micro_usd ?? 0) / 1e6,
    unpricedRequests: row?.unpriced ?? 0,
  };
}

/** The UTC day of an epoch-ms time, `YYYY-MM-DD`. */
export function dayOf(at: number): string {
  return new Date(at).toISOString().slice(0, 10);
}

/** Adds token counts; a count neither side knows stays absent. */
export function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  const out: TokenUsage = {};
  for (const k of ["inputTokens", "outputTokens", "cachedInputTokens", "reasoningTokens", "cacheWriteTokens"] as const) {
    if (a[k] !== undefined || b[k] !== undefined) out[k] = (a[k] ?? 0) + (b[k] ?? 0);
  }
  return out;
}

/** The token usage of a turn's recorded model steps, summed. */
export function stepsUsage(steps: readonly { usage: TokenUsage }[]): TokenUsage {
  return steps.reduce((sum, s) => addUsage(sum, s.usage), {} as TokenUsage);
}
