/**
 * The model seam: one streaming `Model` interface that the turn loop calls once per model step.
 * Two implementations: the scripted model (`scripted.ts`) and the AI SDK adapter (`ai-sdk.ts`),
 * which wraps any provider's `LanguageModel`. `test/models/conformance.test.ts` runs one suite
 * against both.
 * @module
 */
import type { Message, TokenUsage } from "../protocol.js";
import type { ModelSettings } from "./settings.js";
import type { SummaryInput } from "./summary.js";

/** A tool as the model is told about it. */
export interface ModelTool {
  /** The tool's name, as the model calls it. */
  name: string;
  /** The tool's description, shown to the model. */
  description: string;
  /** JSON Schema of the input (`z.toJSONSchema(args, { io: "input" })`). */
  inputSchema: Record<string, unknown>;
  /** `provider`: the provider runs the tool itself (a provider-defined tool such as web search). */
  executionMode?: "local" | "provider";
  /**
   * For `executionMode: "provider"`: the provider-defined tool, as `"<provider>.<tool id>"` (for
   * example `openai.web_search`), and its settings. A model of another provider is not offered it.
   */
  providerTool?: { id: `${string}.${string}`; args?: Record<string, unknown> };
}

/** One model request: the history window and the tools on offer. Never mutated by a model. */
export interface ModelRequest {
  /** The thread the request is for. */
  threadId: string;
  /** The run the step belongs to (its `flowId`): the turn's id, or a nested prompt or agent run's own. */
  turnId: string;
  /** 1-based step number within the turn. */
  step: number;
  /** The side's system prompt, with the thread's `arguments` filled in; absent when it has none. */
  system?: string;
  /** The history window, oldest first, with the compaction summary at its head when there is one. */
  messages: readonly Message[];
  /** The tools on offer at this step. */
  tools: readonly ModelTool[];
  /** Fires when the thread is stopped; the model should end its stream. */
  signal: AbortSignal;
  /** The side's or prompt's model settings; absent: the provider's defaults. */
  settings?: ModelSettings;
}

/**
 * Why a step ended, in the AI SDK's unified terms; `end` is the scripted model's "script ran out"
 * and `interrupted` a provider stream that ended with no finish signal.
 */
export type FinishReason = "stop" | "length" | "content-filter" | "tool-calls" | "error" | "interrupted" | "other" | "end";

/** Provider-specific data of a stream part, keyed by provider (the AI SDK's `providerMetadata`). */
export type ProviderMetadata = Record<string, Record<string, unknown>>;

/** Tokens a step used, as the provider reports them; absent counts are unknown. */
export type Usage = TokenUsage;

/**
 * One part of a streamed model step. Argument deltas concatenate to the call's argument text; a
 * call is complete only once its `tool-call` part arrives, whose `input` is the final text,
 * byte-exact. A call that started but never completed was cut off and must never run.
 */
export type ModelStreamPart =
  | { type: "text-delta"; delta: string }
  /** Reasoning the provider streams (its thinking): neither kept nor shown, but counted as output a cut request received. */
  | { type: "reasoning-delta"; delta: string }
  | { type: "tool-input-start"; id: string; toolName: string }
  | { type: "tool-input-delta"; id: string; delta: string }
  | { type: "tool-call"; id: string; toolName: string; input: string; providerExecuted?: boolean; providerMetadata?: ProviderMetadata }
  /** The result of a call the provider executed itself (`executionMode: "provider"`). */
  | { type: "tool-result"; id: string; toolName: string; result: unknown; isError?: boolean; providerMetadata?: ProviderMetadata }
  | {
      type: "finish";
      finishReason: FinishReason;
      rawFinishReason?: string;
      usage: Usage;
      /** For an `interrupted` finish: what cut the stream (a malformed chunk, a missing finish event). */
      error?: string;
    };

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
  /**
   * True when its requests are paid by the user, not the deployment: they go with a key the user
   * supplied, or keyless to an endpoint the user named (a thread or user env level). The
   * deployment's budgets (`WEFT_BUDGETS`) do not count them (src/usage/meter.ts).
   */
  readonly userPaid?: boolean;
  /** Runs one step: text deltas, tool calls, then one `finish` part; may throw {@link ModelError}. */
  stream(request: ModelRequest): AsyncIterable<ModelStreamPart>;
  /**
   * Summarizes older messages without a model request (the scripted model's extractive
   * summary); absent: compaction asks `stream` with the summarizing instructions.
   */
  summarize?(input: SummaryInput): Promise<string>;
}

/**
 * Why a model step failed, when weft names it: `stream_cut`, the provider's stream ended before
 * its finish (a closed or reset connection, a malformed chunk); `model_timeout`, the step passed
 * its idle or overall deadline (`WEFT_MODEL_IDLE_MS`, `WEFT_MODEL_STEP_MS`); `unsupported_content`,
 * the provider's wire format cannot carry a part of a user message (a PDF by URL to an
 * OpenAI-compatible server, a text file to Anthropic), refused before any request was sent.
 */
export type ModelFailureCode = "stream_cut" | "model_timeout" | "unsupported_content";

/**
 * A provider that answered with an error, or could not be reached. `retryable` is true for 429,
 * 5xx and network failures, a stream cut before its finish and a step past its deadline;
 * `retryAfterMs` carries the provider's `Retry-After`; `code` names a cut stream or a deadline.
 */
export class ModelError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
    readonly retryAfterMs?: number,
    readonly code?: ModelFailureCode,
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
  /** The step's answer text. */
  text?: string;
  /** The tool calls the step asks for, in order. */
  toolCalls?: Array<{ id?: string; name: string; arguments?: string | Record<string, unknown> }>;
  /**
   * Holds the step until a model request's newest message contains this text: a request before
   * then ends its turn with an empty reply and the step stays next. For replies that depend on
   * what arrived, such as a report played once the message saying no background run is left came.
   */
  waitFor?: string;
  /**
   * The step's text as the pieces a provider would stream it in, instead of `text` (give one or
   * the other): each piece is one text delta, `chunkDelayMs` apart. Without a pace the pieces
   * arrive at once and weft's coalescing (at most one `text_delta` per 100 ms or 1 KiB) sends
   * them with the step's `model_step` only, as it does a fast provider's stream.
   */
  chunks?: string[];
  /**
   * Milliseconds the step waits after each of its `chunks`: an integer from 0 (the default) to
   * 60 000, below the model request's idle deadline (`WEFT_MODEL_IDLE_MS`). At 100 or more each
   * piece reaches clients as a `text_delta` of its own, but for a trailing word, which redaction
   * holds back until whitespace follows or the step ends. A stop ends the wait at once.
   */
  chunkDelayMs?: number;
}
