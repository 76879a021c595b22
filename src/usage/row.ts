/**
 * One model request as the usage ledger records it: who answered, the tokens the provider
 * reported (or an estimate, marked, when it reported none), how long it took and what it cost.
 * A request that failed after it was sent (an error answer, a stream cut or reset, a deadline, a
 * stop) is a row too, marked `failed`: the provider may bill it, so it counts against budgets.
 * @module
 */
import type { Message, TokenUsage } from "../protocol.js";
import type { ModelTool } from "../models/model.js";
import { estimateTokens, quarterTokens } from "../run/window.js";
import { inputTokensOf } from "./input-bound.js";
import { type PriceTable, costMicroUsd, priceOf } from "./prices.js";

/** A model request's ledger row. Token counts are whole tokens; `costMicroUsd` is millionths of a dollar. */
export interface ModelUsageRow {
  turnId: string;
  step: number;
  /** `openai` of `openai.responses:gpt-4.1`; `scripted` for the scripted model. */
  provider: string;
  /** The model id as weft names it (`"<provider>:<model id>"`). */
  model: string;
  /** Input tokens, prompt-cache reads and writes included (the AI SDK's `inputTokens.total`). */
  inputTokens: number;
  outputTokens: number;
  /** Input tokens read from the provider's prompt cache. */
  cachedInputTokens: number;
  /** Output tokens spent on reasoning (part of `outputTokens`). */
  reasoningTokens: number;
  /** Input tokens written to the prompt cache (Anthropic). */
  cacheWriteTokens: number;
  /** True when the provider reported no usage and the counts are weft's estimate. */
  estimated: boolean;
  /** True when the request failed after it was sent (each attempt of a retried step is its own row). */
  failed: boolean;
  /** From the request to the end of its stream, in milliseconds. */
  durationMs: number;
  /**
   * What it cost at the price table in force, millionths of a dollar; null when the table has no
   * price for the model (the cost is unknown, never counted as 0: see `priceOf`).
   */
  costMicroUsd: number | null;
  /** The version of the price table the cost was computed from. */
  priceVersion: string;
  /** Paid by the user (their own key or endpoint): the deployment's budgets do not count it. */
  userPaid: boolean;
  /** When it was recorded, epoch ms. */
  at: number;
}

/** The provider of a model id (`openai` of `openai.responses:gpt-4.1`). */
export function providerOfModel(modelId: string): string {
  return modelId.split(":")[0]!.split(".")[0]!;
}

/** What a request sent and got back, for the row. */
export interface AnsweredRequest {
  turnId: string;
  step: number;
  model: string;
  /** Made with the user's own key or endpoint. */
  userPaid?: boolean;
  usage: TokenUsage;
  durationMs: number;
  /** What was sent, for the estimate when the provider reports nothing. */
  sent: readonly Pick<Message, "content" | "toolCalls" | "name" | "parts">[];
  system?: string;
  /** The tools offered with it (their definitions are sent too). */
  tools?: readonly ModelTool[];
  /** The model's context window in tokens (what a file part is counted as, see `partBound`). */
  contextTokens?: number;
  /** The answer's text and call arguments, for the output estimate. */
  answered: string;
  /** What was received instead of `answered`, in quarter tokens (a failed request's partial stream, never kept whole: `AttemptTally`). */
  receivedQuarters?: number;
  /** The request failed after it was sent. */
  failed?: boolean;
  /** The output bound the request sent, if any: an estimate never passes it (the provider stops there). */
  outputBound?: number;
}

/**
 * The ledger row of an answered request. Counts the provider reported are kept as they are, but for
 * counts that are no report: a negative, fractional or non-finite one, and an input of 0 (every
 * request sends something), so an endpoint a user points a thread at cannot lower what budgets
 * count as used. A main count (input or output) not reported is estimated from what was sent and
 * received (the row is marked `estimated`) by script as weft estimates a window (four ASCII
 * characters a token, a CJK character or an emoji one or more), the output at most the bound
 * the request sent. A user-paid row's reported input counts at least {@link userPaidInputFloor},
 * and its reported output at least half the estimate of what was received (marked `estimated`
 * when raised): the endpoint may be the user's own, and its counts are not trusted by the budgets
 * that count the row (the user's own and the agent's).
 */
export function modelUsageRow(request: AnsweredRequest, prices: PriceTable, now = Date.now()): ModelUsageRow {
  const u = reportedCounts(request.usage);
  const userPaid = request.userPaid === true;
  // A main count not reported is estimated; a user-paid input reported under its floor is raised to it.
  const floor = userPaid && u.inputTokens !== undefined ? userPaidInputFloor(request) : 0;
  const inputTokens = u.inputTokens === undefined ? estimateInput(request) : Math.max(u.inputTokens, floor);
  const received = Math.min(Math.ceil((request.receivedQuarters ?? quarterTokens(request.answered)) / 4), request.outputBound ?? Infinity);
  // The output likewise: at least half of weft's estimate of what it received.
  const outputTokens = u.outputTokens === undefined ? received : userPaid ? Math.max(u.outputTokens, Math.ceil(received / 2)) : u.outputTokens;
  const estimated = u.inputTokens === undefined || u.outputTokens === undefined || inputTokens > u.inputTokens || outputTokens > u.outputTokens;
  const tokens = { input: inputTokens, output: outputTokens, cached: u.cachedInputTokens ?? 0, cacheWrite: u.cacheWriteTokens ?? 0 };
  const price = priceOf(prices, request.model);
  return {
    turnId: request.turnId,
    step: request.step,
    provider: providerOfModel(request.model),
    model: request.model,
    inputTokens,
    outputTokens,
    cachedInputTokens: tokens.cached,
    reasoningTokens: u.reasoningTokens ?? 0,
    cacheWriteTokens: tokens.cacheWrite,
    estimated,
    failed: request.failed === true,
    durationMs: Math.max(0, Math.round(request.durationMs)),
    costMicroUsd: price ? costMicroUsd(tokens, price) : null,
    priceVersion: prices.version,
    userPaid,
    at: now,
  };
}

/**
 * Estimated input tokens of a request: what its reservation counts (its system prompt, messages,
 * image and file parts, tools and the tool-use allowance: `inputTokensOf` in
 * src/usage/input-bound.ts), its text at weft's estimate (four characters a token) instead of a
 * token a byte. `textOnly`: its text alone (see `inputTokensOf`).
 */
export function estimateInput(request: Pick<AnsweredRequest, "sent" | "system" | "tools" | "model" | "contextTokens">, textOnly = false): number {
  // A system prompt function may return something else (author code): only text is counted.
  const system = typeof request.system === "string" ? request.system : undefined;
  return inputTokensOf(
    { ...(system !== undefined ? { system } : {}), messages: request.sent, tools: request.tools ?? [], model: request.model, ...(request.contextTokens !== undefined ? { contextTokens: request.contextTokens } : {}) },
    ESTIMATE,
    textOnly,
  );
}

/**
 * The least input a user-paid request is counted: half weft's estimate of the text it sent. Half,
 * so that a provider's honest count (a tokenizer rarely makes fewer tokens than one per eight
 * characters) stands as reported, while an endpoint reporting next to nothing does not empty the
 * budgets that count it; images and files are left out (their reservation's bound is no estimate).
 */
export function userPaidInputFloor(request: Pick<AnsweredRequest, "sent" | "system" | "tools" | "model" | "contextTokens">): number {
  return Math.ceil(estimateInput(request, true) / 2);
}

/** Text at weft's estimate (`estimateTokens` of src/run/window.ts, its framing included). */
const ESTIMATE = { message: estimateTokens, text: (t: string) => estimateTokens({ content: t }) };

/**
 * The provider's counts, each kept only when it is a whole number of tokens, zero or more; an input
 * count of 0 is no report either (the request sent something: an endpoint answering 0 would make
 * every budget that counts it never fill).
 */
function reportedCounts(usage: AnsweredRequest["usage"]): AnsweredRequest["usage"] {
  const out: Record<string, number> = {};
  for (const [key, value] of Object.entries(usage)) if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) out[key] = value;
  if (out.inputTokens === 0) delete out.inputTokens;
  return out as AnsweredRequest["usage"];
}
