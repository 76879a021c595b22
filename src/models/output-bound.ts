/**
 * The output bound a model request sends, in one place: the AI SDK adapter sends what
 * {@link outputPlan} says and the usage meter reserves what it says, so a budget's reservation
 * always covers what the provider may bill.
 *
 * The case it exists for: Anthropic models of budget thinking (claude-sonnet-4-5, claude-haiku-4-5).
 * Given a reasoning effort, the AI SDK asks for a thinking budget of up to the model's whole output
 * and sends `max_tokens = maxOutputTokens + thinking budget` (capped at the model's output limit),
 * since Anthropic counts thinking in `max_tokens`. weft chooses that budget here ({@link THINKING_SHARE}
 * of the model's output limit from the AI SDK's model catalog) and sends it explicitly, so the number
 * sent and the number reserved come from the same computation.
 * @module
 */
import { getAnthropicLanguageModelEntry } from "@ai-sdk/anthropic/internal";
import type { ModelSettings, ReasoningEffort } from "./settings.js";
import type { Wire } from "./history.js";

/** Tokens of thinking Anthropic asks for at least, and the AI SDK's default when thinking is on without a budget. */
const MIN_THINKING_BUDGET = 1024;

/**
 * The thinking budget of each reasoning effort, as a share of the model's output limit (the AI SDK's
 * default shares, so a request thinks as it did before weft chose the budget).
 */
export const THINKING_SHARE: Readonly<Record<Exclude<ReasoningEffort, "provider-default" | "none">, number>> = {
  minimal: 0.02,
  low: 0.1,
  medium: 0.3,
  high: 0.6,
  xhigh: 0.9,
  max: 0.95,
};

/** What a request sends as its output bound. */
export interface OutputPlan {
  /** Anthropic's `thinking` with the budget weft chose, sent in the request's provider options; absent: no budget thinking. */
  thinking?: { type: "enabled"; budgetTokens: number };
  /** Most output tokens the provider is told it may write (answer and thinking); undefined: the settings name no bound. */
  sent: number | undefined;
}

/**
 * The output bound a request to `model` (`"<provider>:<model id>"` and its wire) with `settings`
 * sends: its `maxOutputTokens`, plus the thinking budget on an Anthropic model of budget thinking
 * (a reasoning effort other than `none`/`provider-default`, or thinking the agent enabled in its
 * provider options), capped at the model's output limit as the AI SDK caps it.
 */
export function outputPlan(model: { id: string; wire?: Wire }, settings: ModelSettings | undefined): OutputPlan {
  const max = settings?.maxOutputTokens;
  if (model.wire !== "anthropic") return { sent: max };
  const modelId = model.id.includes(":") ? model.id.slice(model.id.indexOf(":") + 1) : model.id;
  const entry = getAnthropicLanguageModelEntry(modelId);
  const limit = entry.requestConfig.language.maxOutputTokens;
  const budget = thinkingBudget(settings, entry.capabilities.language.reasoning, limit);
  if (budget === undefined) return { sent: max };
  const total = max === undefined ? undefined : max + budget;
  return {
    thinking: { type: "enabled", budgetTokens: budget },
    sent: total !== undefined && entry.requestConfig.language.knownModel ? Math.min(total, limit) : total,
  };
}

/** The thinking budget of a request, when it thinks on a budget. */
function thinkingBudget(settings: ModelSettings | undefined, reasoning: { adaptive: boolean; budget: boolean }, limit: number): number | undefined {
  // Thinking the agent configured itself (`providerOptions.anthropic.thinking`) wins over the effort.
  const own = settings?.providerOptions?.anthropic?.thinking as { type?: unknown; budgetTokens?: unknown } | undefined;
  if (own && typeof own === "object") {
    if (own.type !== "enabled") return undefined;
    return typeof own.budgetTokens === "number" ? own.budgetTokens : MIN_THINKING_BUDGET;
  }
  // An effort given in `providerOptions.anthropic.effort` makes the AI SDK skip its reasoning mapping.
  if (settings?.providerOptions?.anthropic?.effort != null) return undefined;
  const effort = settings?.reasoningEffort;
  if (effort === undefined || effort === "provider-default" || effort === "none" || reasoning.adaptive || !reasoning.budget) return undefined;
  return Math.min(limit, Math.max(MIN_THINKING_BUDGET, Math.round(limit * THINKING_SHARE[effort])));
}
