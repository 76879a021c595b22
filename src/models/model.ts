/**
 * The model seam: one streaming `Model` interface that the turn loop calls once per model step.
 * Two implementations: the scripted model (`scripted.ts`) and the AI SDK adapter (`ai-sdk.ts`),
 * which wraps any provider's `LanguageModel`. `test/models.conformance.test.ts` runs one suite
 * against both.
 * @module
 */
import type { Message, TokenUsage } from "../protocol.js";
import type { SummaryInput } from "./summary.js";

/** A tool as the model is told about it. */
export interface ModelTool {
  name: string;
  description: string;
  /** JSON Schema of the input (`z.toJSONSchema(args, { io: "input" })`). */
  inputSchema: Record<string, unknown>;
  /** `provider`: the provider runs the tool itself (a provider-defined tool such as web search). */
  executionMode?: "local" | "provider";
}

/** One model request: the history window and the tools on offer. Never mutated by a model. */
export interface ModelRequest {
  threadId: string;
  turnId: string;
  /** 1-based step number within the turn. */
  step: number;
  system?: string;
  messages: readonly Message[];
  tools: readonly ModelTool[];
  signal: AbortSignal;
}

/**
 * Why a step ended, in the AI SDK's unified terms; `end` is the scripted model's "script ran out"
 * and `interrupted` a provider stream that ended with no finish signal.
 */
export type FinishReason = "stop" | "length" | "content-filter" | "tool-calls" | "error" | "interrupted" | "other" | "end";

/** Tokens a step used, as the provider reports them; absent counts are unknown. */
export type Usage = TokenUsage;

/**
 * One part of a streamed model step. Argument deltas concatenate to the call's argument text; a
 * call is complete only once its `tool-call` part arrives, whose `input` is the final text,
 * byte-exact. A call that started but never completed was cut off and must never run.
 */
export type ModelStreamPart =
  | { type: "text-delta"; delta: string }
  | { type: "tool-input-start"; id: string; toolName: string }
  | { type: "tool-input-delta"; id: string; delta: string }
  | { type: "tool-call"; id: string; toolName: string; input: string; providerExecuted?: boolean }
  /** The result of a call the provider executed itself (`executionMode: "provider"`). */
  | { type: "tool-result"; id: string; toolName: string; result: unknown; isError?: boolean }
  | { type: "finish"; finishReason: FinishReason; rawFinishReason?: string; usage: Usage };

/**
 * A language model as the turn loop sees it.
 *
 * Contract: `stream` yields parts in order and, when the step succeeds, ends with exactly one
 * `finish` part; a failure throws (a {@link ModelError} when the provider answered with an error).
 * It never mutates the request, and stops promptly when the request's signal fires.
 */
export interface Model {
  /** `"<provider>:<model id>"`, or `scripted`. */
  readonly id: string;
  /** Whether the provider requires strict function schemas (OpenAI `strict: true`). */
  readonly strictTools?: boolean;
  /** The provider's history rules: which wire format requests must be valid in. */
  readonly wire?: "openai" | "anthropic" | "generic";
  /** Context window in tokens, when known; history windows default from it. */
  readonly contextTokens?: number;
  stream(request: ModelRequest): AsyncIterable<ModelStreamPart>;
  /**
   * Summarizes older messages without a model request (the scripted model's extractive
   * summary); absent: compaction asks `stream` with the summarizing instructions.
   */
  summarize?(input: SummaryInput): Promise<string>;
}

/**
 * A provider that answered with an error, or could not be reached. `retryable` is true for 429,
 * 5xx and network failures; `retryAfterMs` carries the provider's `Retry-After`.
 */
export class ModelError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = "ModelError";
  }
}

/**
 * One scripted step. `arguments` may be an object (sent as its JSON) or raw text, which is how a
 * test sends malformed JSON. A missing `id` becomes `call_<random>`.
 */
export interface ScriptStep {
  text?: string;
  toolCalls?: Array<{ id?: string; name: string; arguments?: string | Record<string, unknown> }>;
}
