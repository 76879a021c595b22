/**
 * Reads one streamed model step into what the turn loop acts on: the text, the calls that
 * completed, the calls whose stream was cut off, the finish reason and usage.
 * @module
 */
import { byteLength, fitsBytes } from "../bytes.js";
import type { ToolCallRequest } from "../protocol.js";
import type { FinishReason, ModelStreamPart, Usage } from "../models/model.js";
import { MAX_STEP_BYTES, MAX_STEP_TEXT_BYTES } from "../limits.js";

/** A call whose arguments stopped streaming before the call completed; it never runs. */
export interface CutOffCall {
  id: string;
  name: string;
  /** The argument text received before the stream ended. */
  partial: string;
  /** `length`: the model's output-token limit ended the step inside these arguments. */
  reason?: "length";
}

/** A call the provider ran itself, with its result. */
export interface ProviderCall extends ToolCallRequest {
  result: unknown;
  isError: boolean;
}

/** One model step as read from its stream. */
export interface StepResult {
  text: string;
  /** Completed calls for weft to dispatch, in the order the model made them. */
  toolCalls: ToolCallRequest[];
  /** Calls the provider executed, with their results. */
  providerCalls: ProviderCall[];
  cutOff: CutOffCall[];
  finishReason: FinishReason;
  rawFinishReason?: string;
  /** For an `interrupted` step: what cut its stream, when the model said. */
  error?: string;
  usage: Usage;
}

/** Observes a step while it streams (streamed events, progress arguments). */
export interface StepObserver {
  part(part: ModelStreamPart): void | Promise<void>;
}

/**
 * Longest call id and tool name a step keeps from its model, in characters (ids run to about 40, the
 * longest tool name a deployment can have, `<server>.<tool>`, to 161). A model's are its own, and
 * an endpoint a user named may send megabytes: each is stored in the call's row more than once.
 */
export const MAX_CALL_NAME_CHARS = 256;

/** `text` within {@link MAX_CALL_NAME_CHARS}: a longer one keeps its start and a hash of the whole, so two stay two. */
function bounded(text: string): string {
  if (text.length <= MAX_CALL_NAME_CHARS) return text;
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return `${text.slice(0, MAX_CALL_NAME_CHARS - 9)}~${(h >>> 0).toString(16).padStart(8, "0")}`;
}

/** `part` with its call id and tool name {@link bounded}. */
function boundedPart(part: ModelStreamPart): ModelStreamPart {
  if (!("id" in part) || typeof part.id !== "string") return part;
  const named = "toolName" in part && typeof part.toolName === "string";
  if (part.id.length <= MAX_CALL_NAME_CHARS && (!named || part.toolName.length <= MAX_CALL_NAME_CHARS)) return part;
  return { ...part, id: bounded(part.id), ...(named ? { toolName: bounded(part.toolName) } : {}) } as ModelStreamPart;
}

/**
 * Consumes a model stream. A stream that ends with no `finish` part finishes as `interrupted`;
 * any call that started but never completed is reported in `cutOff`, never in `toolCalls`.
 * @throws whatever the stream throws (a provider error, an abort).
 */
export async function readStep(stream: AsyncIterable<ModelStreamPart>, observer?: StepObserver): Promise<StepResult> {
  let text = "";
  const open = new Map<string, CutOffCall>();
  const toolCalls: ToolCallRequest[] = [];
  const providerCalls: ProviderCall[] = [];
  const executedByProvider = new Map<string, ToolCallRequest>();
  let finish: { finishReason: FinishReason; rawFinishReason?: string; error?: string; usage: Usage } | null = null;
  for await (const raw of stream) {
    const part = boundedPart(raw);
    await observer?.part(part);
    switch (part.type) {
      case "text-delta":
        text += part.delta;
        break;
      case "tool-input-start":
        open.set(part.id, { id: part.id, name: part.toolName, partial: "" });
        break;
      case "tool-input-delta": {
        const call = open.get(part.id);
        if (call) call.partial += part.delta;
        break;
      }
      case "tool-call": {
        open.delete(part.id);
        const call: ToolCallRequest = { id: part.id, name: part.toolName, arguments: part.input };
        // Only what the provider ran keeps its metadata: it is replayed to that provider as it came.
        if (part.providerExecuted) executedByProvider.set(part.id, { ...call, ...(part.providerMetadata ? { providerMetadata: part.providerMetadata } : {}) });
        else toolCalls.push(call);
        break;
      }
      case "tool-result": {
        const call = executedByProvider.get(part.id) ?? { id: part.id, name: part.toolName, arguments: "{}" };
        providerCalls.push({ ...call, result: part.result, isError: part.isError === true });
        break;
      }
      case "finish":
        finish = { finishReason: part.finishReason, usage: part.usage, ...(part.rawFinishReason ? { rawFinishReason: part.rawFinishReason } : {}), ...(part.error ? { error: part.error } : {}) };
        break;
    }
  }
  // A stream that ended without its finish signal may have cut any call short: none of them runs.
  const interrupted = finish === null || finish.finishReason === "interrupted" || finish.finishReason === "error";
  // The output-token limit cut the step: a call whose arguments are not whole JSON was cut by it.
  const byLimit = finish?.finishReason === "length";
  const limited = byLimit ? toolCalls.filter((c) => !isJson(c.arguments)) : [];
  const cutOff: CutOffCall[] = [
    ...(interrupted ? toolCalls.map((c) => ({ id: c.id, name: c.name, partial: c.arguments })) : []),
    ...limited.map((c) => ({ id: c.id, name: c.name, partial: c.arguments, reason: "length" as const })),
    ...[...open.values()].map((c) => (byLimit ? { ...c, reason: "length" as const } : c)),
  ];
  return fitStep({
    text,
    toolCalls: interrupted ? [] : toolCalls.filter((c) => !limited.includes(c)),
    providerCalls,
    cutOff,
    finishReason: finish?.finishReason ?? "interrupted",
    ...(finish?.rawFinishReason ? { rawFinishReason: finish.rawFinishReason } : {}),
    ...(finish?.error ? { error: finish.error } : finish === null ? { error: "the stream ended with no finish" } : {}),
    usage: finish?.usage ?? {},
  });
}

const jsonBytes = (text: string) => byteLength(JSON.stringify(text));

/** Whether argument text is whole JSON (empty text means no arguments, which is whole too). */
function isJson(text: unknown): boolean {
  if (typeof text !== "string" || text.trim() === "") return true;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Keeps a step storable: text over {@link MAX_STEP_TEXT_BYTES} is cut with a notice saying so,
 * and a call whose arguments would take the step over {@link MAX_STEP_BYTES} keeps none of them
 * and carries `oversized` (its argument bytes), so dispatch refuses it with `payload_too_large`;
 * a call the provider ran that would keeps a notice in place of its arguments and result.
 */
export function fitStep(step: StepResult): StepResult {
  let text = step.text;
  if (!fitsBytes(JSON.stringify(text), MAX_STEP_TEXT_BYTES)) {
    const bytes = byteLength(text);
    let keep = Math.floor(MAX_STEP_TEXT_BYTES / 6);
    while (keep < text.length && jsonBytes(text.slice(0, keep * 2)) < MAX_STEP_TEXT_BYTES - 1024) keep *= 2;
    text = `${text.slice(0, Math.min(keep, text.length))}\n[weft: the model's text was ${bytes} bytes; only the start is stored, as a message may hold at most ${MAX_STEP_TEXT_BYTES} bytes]`;
  }
  let budget = MAX_STEP_BYTES - jsonBytes(text);
  // What the provider ran is stored with the step too: a result that would take it over keeps a notice instead.
  const ran = (call: ProviderCall): ProviderCall => {
    const bytes = byteLength(JSON.stringify(call));
    if (bytes <= budget) {
      budget -= bytes;
      return call;
    }
    const notice = `[weft: the provider's call and result were ${bytes} bytes, too large to store with the model's step (at most ${MAX_STEP_BYTES} bytes); they are not kept]`;
    return { id: call.id, name: call.name, arguments: "", result: notice, isError: call.isError };
  };
  const providerCalls = step.providerCalls.map(ran);
  const fit = (call: ToolCallRequest): ToolCallRequest => {
    // An adapter may hand over structured arguments; they are stored as JSON text.
    const raw: unknown = call.arguments;
    const args = typeof raw === "string" ? raw : (JSON.stringify(raw) ?? "");
    const bytes = jsonBytes(args);
    if (bytes <= budget) {
      budget -= bytes;
      return call;
    }
    return { ...call, arguments: "", oversized: byteLength(args) };
  };
  return { ...step, text, providerCalls, toolCalls: step.toolCalls.map(fit), cutOff: step.cutOff.map((c) => (fitsBytes(JSON.stringify(c.partial), budget) ? c : { ...c, partial: "" })) };
}
