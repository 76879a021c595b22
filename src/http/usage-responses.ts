/**
 * Response schemas of the usage routes (`GET /threads/:id/usage`, `GET /account/usage`,
 * `GET|PUT /account/budgets`), re-exported by responses.ts with the others.
 * @module
 */
import * as z from "zod";
import { count, epochMs, named } from "./response-registry.js";

const totals = {
  requests: count,
  inputTokens: count,
  outputTokens: count,
  cachedInputTokens: count,
  reasoningTokens: count,
  cacheWriteTokens: count,
  estimatedRequests: count.describe("Requests whose counts are weft's estimate: the provider reported no usage"),
  durationMs: count,
  costUsd: z.number().describe("USD at the price table in force when each request was recorded; requests of a model with no price are not in it"),
  unpricedRequests: count.describe("Requests of a model the price table has no price for: their cost is unknown, so costUsd is the others' cost only"),
};

/** Sums of model requests (`UsageTotals`). */
export const UsageTotals = named("UsageTotals", z.object(totals));

const tools = z.object({ calls: count, attempts: count, durationMs: count });

/** One model request of the usage ledger (`ModelUsageRow`). */
export const ModelUsageRow = named(
  "ModelUsageRow",
  z.object({
    turnId: z.string(),
    step: count,
    provider: z.string(),
    model: z.string(),
    inputTokens: count,
    outputTokens: count,
    cachedInputTokens: count,
    reasoningTokens: count,
    cacheWriteTokens: count,
    estimated: z.boolean(),
    failed: z.boolean().describe("The request failed after it was sent (an error answer, a cut stream, a deadline, a stop); it counts against budgets"),
    durationMs: count,
    costMicroUsd: count.nullable().describe("Millionths of a USD; null when the price table has no price for the model (the cost is unknown)"),
    priceVersion: z.string(),
    userPaid: z.boolean().describe("Made with the user's own key or endpoint (a thread or user env level): the deployment's budgets (WEFT_BUDGETS) do not count it"),
    at: epochMs,
  }),
);

/** `GET /threads/:id/usage` (`ThreadUsage`). */
export const ThreadUsage = named(
  "ThreadUsage",
  z.object({
    threadId: z.string(),
    agentId: z.string(),
    total: z.object({ ...totals, tools }),
    turns: z.array(z.object({ ...totals, turnId: z.string(), tools })),
    models: z.array(z.object({ ...totals, model: z.string() })),
    requests: z.array(ModelUsageRow),
  }),
);

/** `GET /account/usage` (`AccountUsage`). */
export const AccountUsage = named(
  "AccountUsage",
  z.object({
    from: z.string(),
    to: z.string(),
    groupBy: z.enum(["agent", "model", "day"]),
    total: UsageTotals.describe("Over every group of the range, not only this page's"),
    groups: z.array(z.object({ ...totals, key: z.string() })).describe("A page of groups in key order: at most ?limit= (1 to 1000, default 1000) and 4 MiB of JSON"),
    nextCursor: z.string().nullable().describe("Ask again with ?cursor= this for the groups that follow; null on the last page"),
  }),
);

/** A budget (`Budget`). */
export const Budget = named(
  "Budget",
  z.object({
    scope: z.enum(["thread", "user", "agent"]),
    period: z.enum(["turn", "day", "month", "lifetime"]),
    tokens: count.optional(),
    costUsd: z.number().optional(),
    agent: z.string().optional(),
  }),
);

/** `GET|PUT /account/budgets`: the caller's own budgets. */
export const Budgets = named("Budgets", z.object({ budgets: z.array(Budget) }));
