/**
 * The model seam: the turn loop calls `step` once per model request. Shaped after the AI SDK's
 * `LanguageModel` call so an adapter can wrap any provider; the scripted model is the default.
 * @module
 */
import type { Message, ToolCallRequest } from "../protocol.js";

/** A tool as the model is told about it. */
export interface ModelTool {
  name: string;
  description: string;
  /** JSON Schema of the input (`z.toJSONSchema(args, { io: "input" })`). */
  inputSchema: Record<string, unknown>;
}

/** One model request: the history so far and the tools on offer. */
export interface ModelRequest {
  threadId: string;
  turnId: string;
  /** 1-based step number within the turn. */
  step: number;
  system?: string;
  messages: Message[];
  tools: ModelTool[];
  signal: AbortSignal;
}

/** One model response: text and any tool calls (several calls make one parallel step). */
export interface ModelResponse {
  text: string;
  toolCalls: ToolCallRequest[];
  /** `end` when the model has nothing more to say this turn (the script ran out). */
  finish: "stop" | "tool_calls" | "end";
}

/**
 * A language model as the turn loop sees it.
 * Contract: `step` resolves with a response or rejects; it never mutates the request.
 */
export interface Model {
  readonly id: string;
  step(request: ModelRequest): Promise<ModelResponse>;
}

/**
 * One scripted step. `arguments` may be an object (sent as its JSON) or raw text, which is how a
 * test sends malformed JSON. A missing `id` becomes `call_<turn>_<step>_<index>`.
 */
export interface ScriptStep {
  text?: string;
  toolCalls?: Array<{ id?: string; name: string; arguments?: string | Record<string, unknown> }>;
}
