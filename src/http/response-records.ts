/**
 * Response schemas of the records a thread keeps and its routes send whole or inside other
 * answers: turns and their model steps, messages and the tool calls they ask for, tool results,
 * call records and call outcomes, and the tools a model is offered. Tied to the server's types in
 * response-types.ts.
 * @module
 */
import * as z from "zod";
import { ERROR_CODES, type ErrorCode } from "../errors.js";
import { CALL_STATUSES, TURN_ERROR_CODES } from "../protocol.js";
import { count, epochMs, named, side } from "./response-registry.js";
import { turnSettingsSchema } from "../models/settings.js";
import { contentPartSchema } from "../content/parts.js";

const codes = Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]];

/** Tokens a model step or a turn used (`TokenUsage`). */
export const TokenUsage = named(
  "TokenUsage",
  z.object({
    inputTokens: z.number().optional(),
    outputTokens: z.number().optional(),
    cachedInputTokens: z.number().optional(),
    reasoningTokens: z.number().optional(),
    cacheWriteTokens: z.number().optional(),
  }),
  "Tokens as the provider reports them; absent counts are unknown",
);

/** One model step of a turn: its model, finish reason, usage and attempts (`ModelStepRecord`). */
export const ModelStepRecord = named(
  "ModelStepRecord",
  z.object({
    step: count,
    model: z.string(),
    finishReason: z.string(),
    usage: TokenUsage,
    attempts: count,
    retries: z.array(z.string()).optional(),
    side: side.optional(),
  }),
);

/** A thread's newest turn, as `GET /threads/:id` gives it (`TurnRecord`). */
export const TurnRecord = named(
  "TurnRecord",
  z.object({
    turnId: z.string(),
    status: z.enum(["running", "waiting", "completed", "stopped", "failed"]),
    steps: count,
    startedAt: epochMs,
    finishedAt: epochMs.optional(),
    error: z.string().optional(),
    errorCode: z.enum(TURN_ERROR_CODES).optional(),
    modelSteps: z.array(ModelStepRecord).optional(),
    usage: TokenUsage.optional(),
    modelSettings: turnSettingsSchema.optional(),
  }),
);


/** A tool as the model is told about it; a provider-executed one names the provider's tool. */
export const ModelTool = named(
  "ModelTool",
  z.object({
    name: z.string(),
    description: z.string(),
    inputSchema: z.record(z.string(), z.unknown()),
    executionMode: z.enum(["local", "provider"]).optional(),
    providerTool: z.object({ id: z.templateLiteral([z.string(), ".", z.string()]), args: z.record(z.string(), z.unknown()).optional() }).optional(),
  }),
);


/** A tool call a model step asked for, its argument text as sent (`ToolCallRequest`). */
export const ToolCallRequest = named(
  "ToolCallRequest",
  z.object({
    id: z.string(),
    name: z.string(),
    arguments: z.string(),
    cutOff: z.union([z.boolean(), z.literal("length")]).optional(),
    oversized: z.number().optional(),
    announced: z.boolean().optional(),
    providerExecuted: z.boolean().optional(),
    providerResult: z.object({ value: z.unknown(), isError: z.boolean().optional(), provider: z.string() }).optional(),
    providerMetadata: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
  }),
);

/** A stored message (`Message`). */
export const Message = named(
  "Message",
  z.object({
    id: count,
    role: z.enum(["user", "assistant", "system", "tool"]),
    content: z.string(),
    parts: z.array(contentPartSchema).optional(),
    toolCalls: z.array(ToolCallRequest).optional(),
    toolCallId: z.string().optional(),
    name: z.string().optional(),
    isError: z.literal(true).optional(),
    silent: z.boolean(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    depth: count.optional(),
    side: side.optional(),
    createdAt: epochMs,
  }),
);


const ToolAttachment = z.object({ name: z.string(), mimeType: z.string(), data: z.string(), width: z.number().optional(), height: z.number().optional() });
const AttachmentRef = z.object({ name: z.string(), mimeType: z.string(), path: z.string(), size: count });

/** A tool's result, attachments inline or stored and referenced (`ToolResult`). */
export const ToolResult = named(
  "ToolResult",
  z.object({
    status: z.enum(["success", "error"]),
    result: z.string().optional(),
    error: z.string().optional(),
    stack: z.string().optional(),
    attachments: z.array(z.union([ToolAttachment, AttachmentRef])).optional(),
  }),
);


const callStatus = z.enum(CALL_STATUSES);

/** One call record (`GET /threads/:id/calls/:callId`). */
export const CallRecord = named(
  "CallRecord",
  z.object({
    callId: z.string(),
    toolName: z.string(),
    source: z.enum(["model", "direct", "queue", "invoke"]),
    status: callStatus,
    argsText: z.string(),
    input: z.unknown().optional(),
    result: ToolResult.optional(),
    attempts: count,
    effectKey: z.string(),
    turnId: z.string().optional(),
    createdAt: epochMs,
    startedAt: epochMs.optional(),
    finishedAt: epochMs.optional(),
    durationMs: z.number().optional(),
    stubbed: z.boolean().optional(),
    approvedBy: z.string().optional(),
    decidedBy: z.string().optional(),
    parkReason: z.string().optional(),
    argsHash: z.string().optional(),
    errorCode: z.string().optional(),
    errorDetails: z.record(z.string(), z.unknown()).optional(),
    fullResultPath: z.string().optional(),
    outcome: z.literal("unknown").optional(),
    restarts: count.optional(),
  }),
);


/** How a call stands after approve, deny or settle. */
export const CallOutcome = named(
  "CallOutcome",
  z.object({
    callId: z.string(),
    toolName: z.string(),
    argsText: z.string(),
    status: callStatus,
    final: z.boolean(),
    result: ToolResult,
    isError: z.boolean(),
    errorCode: z.enum(codes).optional(),
    errorDetails: z.record(z.string(), z.unknown()).optional(),
    durationMs: z.number(),
    attempts: count,
    endsTurn: z.boolean(),
    stubbed: z.boolean().optional(),
    fullResultPath: z.string().optional(),
    repeated: z.literal(true).optional(),
  }),
);

