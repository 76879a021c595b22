/**
 * The AI SDK adapter: a weft `Model` over any AI SDK `LanguageModel` (any provider package, spec
 * v2, v3 or v4). It calls the provider's `doStream` once per step, so weft keeps the raw argument
 * text, does its own retries and sees every stream part.
 * @module
 */
import {
  APICallError,
  UnsupportedFunctionalityError,
  type JSONValue,
  type SharedV4ProviderOptions,
  type LanguageModelV4,
  type LanguageModelV4CallOptions,
  type LanguageModelV4Prompt,
  type LanguageModelV4StreamPart,
  type LanguageModelV4ToolChoice,
} from "@ai-sdk/provider";
import type { LanguageModel } from "ai";
import { resolveLanguageModel } from "ai/internal";
import { WeftError, errorMessage } from "../errors.js";
import { type HistoryEntry, type Wire, providerHistory } from "./history.js";
import { type FinishReason, type Model, ModelError, type ModelRequest, type ModelStreamPart, type ModelTool, type ProviderMetadata } from "./model.js";
import type { ModelSettings } from "./settings.js";
import { type ContentPart, isUrlData } from "../content/parts.js";
import { strictSchema } from "./strict.js";
import { outputPlan } from "./output-bound.js";

/** Options of {@link fromLanguageModel}. */
export interface LanguageModelOptions {
  /** Defaults to `<provider>:<model id>` as the model reports them. */
  id?: string;
  /** Which provider's history rules requests follow; default `generic`. */
  wire?: Wire;
  /** Send strict function schemas (OpenAI `strict: true`). */
  strictTools?: boolean;
  /** Context window in tokens. */
  contextTokens?: number;
  /** Provider-defined tools by weft tool name, for tools with `executionMode: "provider"`. */
  providerTools?: Record<string, { id: `${string}.${string}`; args?: Record<string, unknown> }>;
  /** Its requests are paid by the user (see `Model.userPaid`). */
  userPaid?: boolean;
  /** Said after the provider's message when it answers 404 (the endpoint is not there): what to try instead. */
  notFoundHint?: string;
}

/**
 * Wraps an AI SDK language model as a weft `Model`.
 * @throws WeftError `invalid_config` for a model given as a bare string (weft resolves
 * `"<provider>:<model id>"` through its own registry) or of an unsupported spec version.
 */
export function fromLanguageModel(model: LanguageModel, options: LanguageModelOptions = {}): Model {
  if (typeof model === "string") throw new WeftError("invalid_config", `model "${model}": pass a LanguageModel object, or name it as "<provider>:<model id>"`);
  let lm: LanguageModelV4;
  try {
    lm = resolveLanguageModel(model);
  } catch (e) {
    throw new WeftError("invalid_config", `model: ${errorMessage(e)}`);
  }
  const wire = options.wire ?? "generic";
  const id = options.id ?? `${lm.provider}:${lm.modelId}`;
  return {
    id,
    wire,
    ...(options.strictTools ? { strictTools: true } : {}),
    ...(options.contextTokens ? { contextTokens: options.contextTokens } : {}),
    ...(options.userPaid ? { userPaid: true } : {}),
    stream: (request) => streamStep(lm, callOptions(request, { id, wire }, options, lm.provider), request.signal, options.notFoundHint),
  };
}

async function* streamStep(lm: LanguageModelV4, options: LanguageModelV4CallOptions, signal: AbortSignal, notFoundHint?: string): AsyncGenerator<ModelStreamPart> {
  let stream: ReadableStream<LanguageModelV4StreamPart>;
  try {
    ({ stream } = await lm.doStream(options));
  } catch (e) {
    const error = toModelError(e, signal);
    if (notFoundHint && error instanceof ModelError && error.status === 404) {
      throw new ModelError(`${error.message} (${notFoundHint})`, error.retryable, error.status, error.retryAfterMs, error.code);
    }
    throw error;
  }
  const reader = stream.getReader();
  let failure: unknown = null;
  try {
    for (;;) {
      let next: ReadableStreamReadResult<LanguageModelV4StreamPart>;
      try {
        next = await reader.read();
      } catch (e) {
        throw toModelError(e, signal, true);
      }
      if (next.done) break;
      const part = next.value;
      switch (part.type) {
        case "text-delta":
          if (part.delta !== "") yield { type: "text-delta", delta: part.delta };
          break;
        case "reasoning-delta":
          if (part.delta !== "") yield { type: "reasoning-delta", delta: part.delta };
          break;
        case "tool-input-start":
          yield { type: "tool-input-start", id: part.id, toolName: part.toolName };
          break;
        case "tool-input-delta":
          if (part.delta !== "") yield { type: "tool-input-delta", id: part.id, delta: part.delta };
          break;
        case "tool-call":
          yield {
            type: "tool-call",
            id: part.toolCallId,
            toolName: part.toolName,
            input: part.input,
            ...(part.providerExecuted ? { providerExecuted: true } : {}),
            ...(part.providerMetadata ? { providerMetadata: part.providerMetadata as ProviderMetadata } : {}),
          };
          break;
        case "tool-result":
          yield {
            type: "tool-result",
            id: part.toolCallId,
            toolName: part.toolName,
            result: part.result,
            ...(part.isError ? { isError: true } : {}),
            ...(part.providerMetadata ? { providerMetadata: part.providerMetadata as ProviderMetadata } : {}),
          };
          break;
        case "error":
          // The provider's own error event (a broken body reads as one of the 200 answer: cut);
          // anything else (a malformed chunk, a missing finish) cut the stream too.
          if (part.error instanceof APICallError) throw toModelError(part.error, signal, true);
          failure ??= part.error;
          break;
        case "finish": {
          const usage = part.usage;
          yield {
            type: "finish",
            finishReason: failure !== null ? "interrupted" : (part.finishReason.unified as FinishReason),
            ...(part.finishReason.raw ? { rawFinishReason: part.finishReason.raw } : {}),
            ...(failure !== null ? { error: errorMessage(failure) } : {}),
            usage: {
              ...(usage.inputTokens.total !== undefined ? { inputTokens: usage.inputTokens.total } : {}),
              ...(usage.outputTokens.total !== undefined ? { outputTokens: usage.outputTokens.total } : {}),
              ...(usage.inputTokens.cacheRead !== undefined ? { cachedInputTokens: usage.inputTokens.cacheRead } : {}),
              // Reported only when some were spent: the packages give 0 for "none" and for "not reported" alike.
              ...(usage.outputTokens.reasoning ? { reasoningTokens: usage.outputTokens.reasoning } : {}),
              ...(usage.inputTokens.cacheWrite ? { cacheWriteTokens: usage.inputTokens.cacheWrite } : {}),
            },
          };
          return;
        }
        default:
          break;
      }
    }
  } finally {
    reader.releaseLock();
  }
}

/**
 * Maps a provider failure to a `ModelError`; 408, 409, 429, 5xx and network failures retry. A
 * failure of an answer that began (a 2xx status: the provider packages report a broken body as an
 * error of the 200 answer, some while `doStream` still reads its first events; or any failure
 * while `streaming`) is a cut stream: retryable, code `stream_cut`.
 */
export function toModelError(e: unknown, signal?: AbortSignal, streaming = false): Error {
  if (signal?.aborted) return e instanceof Error ? e : new Error(String(e));
  if (e instanceof ModelError) return e;
  // The provider package refused content its wire format cannot carry, before any request was sent.
  if (UnsupportedFunctionalityError.isInstance(e) && CONTENT_FUNCTIONALITY.test(e.functionality)) {
    return new ModelError(
      `the provider does not take this message's content (${e.functionality}): send it in a form it takes (an image or a PDF as base64, a media type it supports), or use a model that does`,
      false,
      undefined,
      undefined,
      "unsupported_content",
    );
  }
  const status = APICallError.isInstance(e) ? e.statusCode : undefined;
  if ((status !== undefined && status >= 200 && status < 300) || (streaming && status === undefined)) {
    const cause = APICallError.isInstance(e) && e.cause !== undefined ? errorMessage(e.cause) : errorMessage(e);
    return new ModelError(`the model's stream was cut before its finish (${cause})`, true, undefined, undefined, "stream_cut");
  }
  if (APICallError.isInstance(e)) {
    const retryable = status === undefined ? true : status === 408 || status === 409 || status === 429 || status >= 500;
    const retryAfterMs = retryAfterOf(e.responseHeaders);
    const detail = providerMessage(e.responseBody) ?? e.message;
    return new ModelError(`${status ? `provider answered ${status}: ` : ""}${detail}`, retryable, status, retryAfterMs);
  }
  // A request that never got an answer: Node's fetch throws TypeError ("fetch failed"), workerd's an
  // Error ("Network connection lost", "connection refused", or only "internal error; reference = ..."
  // for a host it cannot resolve); the provider packages pass it through.
  const message = errorMessage(e);
  const unanswered = e instanceof TypeError || NETWORK_FAILURE.test(message) || WORKERD_OPAQUE.test(message);
  return new ModelError(unanswered ? `the provider could not be reached (${message}): check its URL and that the network reaches it` : message, unanswered);
}

/** workerd's whole message for a failure it keeps to itself, such as a DNS lookup that failed (the cause goes to its log). */
const WORKERD_OPAQUE = /^internal error; reference = /;

/** The provider packages' names of message content they cannot send (file parts, media types). */
const CONTENT_FUNCTIONALITY = /part|media type/i;

/** Messages of a request that failed in the network, not at the provider. */
const NETWORK_FAILURE = /network|connection|socket|ECONN|ETIMEDOUT|EPIPE|fetch failed|refused|reset|timed out/i;

/** `Retry-After` (seconds or an HTTP date) or `retry-after-ms`, in milliseconds. */
function retryAfterOf(headers: Record<string, string> | undefined): number | undefined {
  if (!headers) return undefined;
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  const ms = Number(lower["retry-after-ms"]);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const raw = lower["retry-after"];
  if (raw === undefined) return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** The provider's own error message from a JSON error body, when it has one. */
function providerMessage(body: string | undefined): string | undefined {
  if (!body) return undefined;
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown };
    if (typeof parsed.error === "string") return parsed.error;
    if (typeof parsed.error?.message === "string") return parsed.error.message;
    if (typeof parsed.message === "string") return parsed.message;
  } catch {
    // Not JSON: the SDK's message says enough.
  }
  return undefined;
}

function callOptions(request: ModelRequest, model: { id: string; wire: Wire }, options: LanguageModelOptions, provider: string): LanguageModelV4CallOptions {
  const wire = model.wire;
  const tools = request.tools.flatMap((tool) => toolOf(tool, options, provider));
  const s = request.settings ?? {};
  // The thinking budget goes explicitly, as the usage meter reserved it (one computation for both).
  const { thinking } = outputPlan(model, s);
  const providerOptions = thinking && !s.providerOptions?.anthropic?.thinking ? { ...s.providerOptions, anthropic: { ...s.providerOptions?.anthropic, thinking } } : s.providerOptions;
  return {
    prompt: s.promptCaching && wire === "anthropic" ? cacheMarked(promptOf(request, wire, provider)) : promptOf(request, wire, provider),
    ...(tools.length > 0 ? { tools, toolChoice: toolChoiceOf(s.toolChoice) } : {}),
    ...(s.temperature !== undefined ? { temperature: s.temperature } : {}),
    ...(s.topP !== undefined ? { topP: s.topP } : {}),
    ...(s.maxOutputTokens !== undefined ? { maxOutputTokens: s.maxOutputTokens } : {}),
    ...(s.stopSequences !== undefined ? { stopSequences: [...s.stopSequences] } : {}),
    ...(s.reasoningEffort !== undefined ? { reasoning: s.reasoningEffort } : {}),
    ...(providerOptions !== undefined ? { providerOptions: providerOptions as SharedV4ProviderOptions } : {}),
    abortSignal: request.signal,
  };
}

/** Anthropic's cache breakpoints: after the system prompt, and after the newest message (the prefix the next step repeats). */
const CACHE_POINT = { anthropic: { cacheControl: { type: "ephemeral" } } } satisfies SharedV4ProviderOptions;

function cacheMarked(prompt: LanguageModelV4Prompt): LanguageModelV4Prompt {
  const last = prompt.length - 1;
  return prompt.map((message, i) =>
    (i === 0 && message.role === "system") || i === last ? { ...message, providerOptions: { ...message.providerOptions, ...CACHE_POINT } } : message,
  ) as LanguageModelV4Prompt;
}

function toolChoiceOf(choice: ModelSettings["toolChoice"]): LanguageModelV4ToolChoice {
  if (choice === undefined) return { type: "auto" };
  return typeof choice === "object" ? { type: "tool", toolName: choice.tool } : { type: choice };
}

/**
 * A tool as the provider is told about it. A provider-executed tool goes as the provider-defined
 * tool it names, and only to a model of that provider (`openai.responses` runs `openai.*` tools);
 * any other model is not offered it, since weft never runs it itself.
 */
function toolOf(tool: ModelTool, options: LanguageModelOptions, provider: string): Array<NonNullable<LanguageModelV4CallOptions["tools"]>[number]> {
  if (tool.executionMode === "provider") {
    const provided = options.providerTools?.[tool.name] ?? tool.providerTool;
    if (!provided || provided.id.split(".")[0] !== provider.split(".")[0]) return [];
    return [{ type: "provider", id: provided.id, name: tool.name, args: provided.args ?? {} }];
  }
  // A schema strict mode would narrow goes as written, without `strict` (see `strictSchema`).
  const strict = options.strictTools ? strictSchema(tool.inputSchema) : null;
  return [
    {
      type: "function",
      name: tool.name,
      description: tool.description,
      inputSchema: (strict?.schema ?? tool.inputSchema) as never,
      ...(strict ? { strict: true } : {}),
    },
  ];
}

/**
 * The provider prompt for a request: system text, then the history under the wire's rules. What
 * another provider ran itself (`provider`, the AI SDK's, such as `openai.responses`) cannot go back
 * as a call this provider made: its result joins the assistant's text instead.
 */
export function promptOf(request: Pick<ModelRequest, "system" | "messages">, wire: Wire, provider = ""): LanguageModelV4Prompt {
  const prompt: LanguageModelV4Prompt = [];
  if (request.system) prompt.push({ role: "system", content: request.system });
  const own = provider.split(".")[0];
  for (const entry of providerHistory(request.messages, wire)) prompt.push(messageOf(entry.role === "assistant" ? ownProviderCalls(entry, own) : entry));
  return prompt;
}

/** An assistant entry with the provider calls of other providers turned into text. */
function ownProviderCalls(entry: Extract<HistoryEntry, { role: "assistant" }>, provider: string | undefined): HistoryEntry {
  const calls = entry.providerCalls ?? [];
  const foreign = calls.filter((c) => c.result.provider !== provider);
  if (foreign.length === 0) return entry;
  const notes = foreign.map((c) => `[${c.call.name} ran by ${c.result.provider}${c.result.isError ? " (failed)" : ""}: ${JSON.stringify(c.result.value)}]`);
  return { ...entry, text: [...notes, entry.text].filter((t) => t !== "").join("\n"), providerCalls: calls.filter((c) => c.result.provider === provider) };
}

/** A part of an assistant message in a provider prompt. */
type AssistantPart = Extract<LanguageModelV4Prompt[number], { role: "assistant" }>["content"][number];

function messageOf(entry: HistoryEntry): LanguageModelV4Prompt[number] {
  switch (entry.role) {
    case "system":
      return { role: "system", content: entry.text };
    case "user":
      return { role: "user", content: entry.parts ? userParts(entry.parts) : [{ type: "text", text: entry.text }] };
    case "assistant":
      return {
        role: "assistant",
        content: [
          // What the provider ran itself goes back as it came: its call, then its result.
          ...(entry.providerCalls ?? []).flatMap(({ call, result }): AssistantPart[] => [
            { type: "tool-call", toolCallId: call.id, toolName: call.name, input: argumentsObject(call.arguments), providerExecuted: true, ...optionsOf(call.providerMetadata) },
            {
              type: "tool-result",
              toolCallId: call.id,
              toolName: call.name,
              output: result.isError ? { type: "error-json", value: (result.value ?? null) as JSONValue } : { type: "json", value: (result.value ?? null) as JSONValue },
              ...optionsOf(call.providerMetadata),
            },
          ]),
          ...(entry.text !== "" ? [{ type: "text" as const, text: entry.text }] : []),
          ...entry.calls.map((c) => ({ type: "tool-call" as const, toolCallId: c.id, toolName: c.name, input: argumentsObject(c.arguments) })),
        ],
      };
    case "tool":
      return {
        role: "tool",
        // `error-text` is the AI SDK's error result: Anthropic's `is_error`, plain text for OpenAI.
        content: entry.results.map((r) => ({
          type: "tool-result" as const,
          toolCallId: r.callId,
          toolName: r.name,
          output: r.isError ? { type: "error-text" as const, value: r.text } : { type: "text" as const, value: r.text },
        })),
      };
  }
}

/** A user message's parts as the provider prompt takes them: an image or file by URL or as base64 data. No empty text part. */
type UserPart = Extract<LanguageModelV4Prompt[number], { role: "user" }>["content"][number];

function userParts(parts: readonly ContentPart[]): UserPart[] {
  return parts.flatMap((part): UserPart[] => {
    if (part.type === "text") return part.text === "" ? [] : [{ type: "text" as const, text: part.text }];
    const value = part.type === "image" ? part.image : part.data;
    const data = isUrlData(value) ? { type: "url" as const, url: new URL(value) } : { type: "data" as const, data: value };
    // An image without its media type (given by URL) is any image: the provider reads it from the URL.
    const mediaType = part.mediaType ?? "image";
    return [{ type: "file" as const, data, mediaType, ...(part.type === "file" && part.filename !== undefined ? { filename: part.filename } : {}) }];
  });
}

/** Provider metadata received with a part, sent back as that part's provider options. */
function optionsOf(metadata: ProviderMetadata | undefined): { providerOptions?: SharedV4ProviderOptions } {
  // It came from the provider as JSON and was stored as JSON.
  return metadata ? { providerOptions: metadata as SharedV4ProviderOptions } : {};
}

/** A call's arguments as the object providers require; text that is not a JSON object sends `{}`. */
function argumentsObject(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text) as unknown;
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
