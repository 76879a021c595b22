/**
 * The usage reports the API answers, a thread's (`GET /threads/:id/usage`) and a user's
 * (`GET /account/usage`), as types only: weft/client's declarations reach them without the
 * ledgers' SQLite code (src/usage/thread-ledger.ts, src/usage/account-ledger.ts).
 * @module
 */
import type { ModelUsageRow } from "./row.js";
import type { UsageTotals } from "./totals.js";

/** Tool calls' time and tries: every call of the journal with a result. */
export interface ToolUsage {
  calls: number;
  /** Attempts of the tools' `execute` (retries counted). */
  attempts: number;
  durationMs: number;
}

/** `GET /threads/:id/usage`: the thread's usage, whole and per turn and model, and its newest request rows. */
export interface ThreadUsage {
  threadId: string;
  agentId: string;
  total: UsageTotals & { tools: ToolUsage };
  turns: Array<UsageTotals & { turnId: string; tools: ToolUsage }>;
  models: Array<UsageTotals & { model: string }>;
  /** The newest request rows (at most `MAX_LISTED_REQUESTS`, src/usage/thread-ledger.ts), oldest first, each with the price version it was costed at. */
  requests: ModelUsageRow[];
}

/** How `GET /account/usage` groups. */
export type UsageGroupBy = "agent" | "model" | "day";

/** What `GET /account/usage` is asked: the range, the grouping and which page of groups. */
export interface AccountUsageQuery {
  /** First UTC day, `YYYY-MM-DD` (default 29 days before today). */
  from?: string;
  /** Last UTC day, `YYYY-MM-DD`, inclusive (default today). */
  to?: string;
  /** `agent`, `model` or `day` (default). */
  groupBy?: string;
  /** Groups a page, 1 to 1000 (default 1000): `PAGE_SIZES.usageGroups` in src/limits.ts. */
  limit?: number;
  /** The previous page's `nextCursor`: the groups after that key. */
  cursor?: string;
}

/** `GET /account/usage`: the user's usage over UTC days `from`..`to` (inclusive), whole and a page of groups. */
export interface AccountUsage {
  from: string;
  to: string;
  groupBy: UsageGroupBy;
  /** Over every group of the range, not only this page's. */
  total: UsageTotals;
  /** A page of groups in key order (at most `limit`, 1000 by default, and 4 MiB of JSON). */
  groups: Array<UsageTotals & { key: string }>;
  /** Asks for the next page (`?cursor=`, with the same `groupBy`); null on the last page. */
  nextCursor: string | null;
}
