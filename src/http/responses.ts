/**
 * Every route's response bodies, in one place: zod schemas of what each route answers, each
 * registered under the name it has in the OpenAPI document (`components.schemas`), and turned into
 * JSON Schema there by zod's `z.toJSONSchema`. Each schema is tied to the TypeScript type the
 * server builds the answer from (see response-types.ts), so the two cannot drift apart unnoticed:
 * `npm run typecheck` fails when one changes without the other. test/openapi-responses.test.ts
 * checks real answers of every operation against the document.
 * @module
 */
import * as z from "zod";
import { ERROR_CODES, type ErrorCode } from "../errors.js";
import { CALL_STATUSES } from "../protocol.js";

/** The body a response schema describes, for a route that builds its answer itself (`c.json(x satisfies Body<typeof Index>)`). */
export type Body<S extends z.ZodType> = z.output<S>;

/** The registry of response schemas: each schema's `id` is its name under `components.schemas`. */
export const responseSchemas = z.registry<{ id: string }>();

/** `schema` (with its `description`), registered in {@link responseSchemas} as `id`. */
function named<T extends z.ZodType>(id: string, schema: T, description?: string): T {
  const described = description ? (schema.describe(description) as T) : schema;
  responseSchemas.add(described as z.ZodType, { id });
  return described;
}

const count = z.number().int().nonnegative();
const epochMs = z.number().describe("Milliseconds since the Unix epoch");
const side = z.enum(["a", "b"]);
const codes = Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]];

/** `{ error: { code, message, details? } }` with `code` one of `allowed`. */
const errorShape = (allowed: readonly [ErrorCode, ...ErrorCode[]]) =>
  z.object({
    error: z.object({
      code: z.enum(allowed),
      message: z.string(),
      details: z.record(z.string(), z.unknown()).optional().describe("For validation errors: `path` (array of keys) and `issues`."),
    }),
  });

/** The one error body of every route: `{ error: { code, message, details? } }`, `code` from weft's closed union. */
export const ErrorBody = named("Error", errorShape(codes), "An error; its HTTP status comes from its code (src/errors.ts)");

const errorBodies = new Map<number, z.ZodType>();

/**
 * The error body for one HTTP status (`Error404`, ...): `code` is one of the codes that answer with it.
 * @throws Error for a status no code answers with
 */
export function errorBodyOf(status: number): z.ZodType {
  let body = errorBodies.get(status);
  if (!body) {
    const allowed = codes.filter((c) => ERROR_CODES[c].status === status);
    if (allowed.length === 0) throw new Error(`no error code answers with status ${status}`);
    body = named(`Error${status}`, errorShape(allowed as [ErrorCode, ...ErrorCode[]]), `An error answered with status ${status}: ${allowed.join(", ")}`);
    errorBodies.set(status, body);
  }
  return body;
}

export const TokenUsage = named(
  "TokenUsage",
  z.object({ inputTokens: z.number().optional(), outputTokens: z.number().optional(), cachedInputTokens: z.number().optional() }),
  "Tokens as the provider reports them; absent counts are unknown",
);

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

export const TurnRecord = named(
  "TurnRecord",
  z.object({
    turnId: z.string(),
    status: z.enum(["running", "waiting", "completed", "stopped", "failed"]),
    steps: count,
    startedAt: epochMs,
    finishedAt: epochMs.optional(),
    error: z.string().optional(),
    errorCode: z.enum(["restart_loop", "stream_cut", "model_timeout"]).optional(),
    modelSteps: z.array(ModelStepRecord).optional(),
    usage: TokenUsage.optional(),
  }),
);

/** What `POST /threads` answers: the thread's record. */
export const ThreadMeta = named(
  "ThreadMeta",
  z.object({
    threadId: z.string(),
    agentId: z.string(),
    userId: z.string().nullable(),
    createdAt: epochMs,
    arguments: z.record(z.string(), z.unknown()),
    dryRun: z.boolean(),
    asOf: z.string().optional(),
    ephemeral: z.boolean(),
    counted: z.literal(true).optional(),
    parent: z.object({ threadId: z.string(), callId: z.string() }).optional(),
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

/** What `GET /threads/:id` answers. */
export const ThreadInfo = named(
  "ThreadInfo",
  ThreadMeta.extend({
    status: z.enum(["idle", "running", "waiting"]),
    messageCount: count,
    lastSeq: count,
    lastTurn: TurnRecord.optional(),
    tools: z.array(ModelTool),
    unavailableTools: z.array(z.object({ name: z.string(), reason: z.string() })),
    models: z.array(z.object({ side, spec: z.string(), where: z.string() })),
  }),
);

/** `GET /threads`: a page of the caller's threads, newest first. */
export const ThreadPage = named(
  "ThreadPage",
  z.object({ threads: z.array(z.object({ threadId: z.string(), agentId: z.string(), createdAt: epochMs })), nextCursor: z.string().nullable() }),
);

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

export const Message = named(
  "Message",
  z.object({
    id: count,
    role: z.enum(["user", "assistant", "system", "tool"]),
    content: z.string(),
    toolCalls: z.array(ToolCallRequest).optional(),
    toolCallId: z.string().optional(),
    name: z.string().optional(),
    silent: z.boolean(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    depth: count.optional(),
    side: side.optional(),
    createdAt: epochMs,
  }),
);

/** `GET /threads/:id/messages`. */
export const MessagePage = named("MessagePage", z.object({ messages: z.array(Message), total: count, hasMore: z.boolean() }));

/** `POST /threads/:id/messages`: queued behind a turn, or stored (`message`) and its turn started. */
export const PostedMessage = named("PostedMessage", z.object({ queued: z.boolean(), message: Message.optional() }));

const ToolAttachment = z.object({ name: z.string(), mimeType: z.string(), data: z.string(), width: z.number().optional(), height: z.number().optional() });
const AttachmentRef = z.object({ name: z.string(), mimeType: z.string(), path: z.string(), size: count });

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

/** `GET /threads/:id/calls`. */
export const CallList = named("CallList", z.object({ calls: z.array(CallRecord) }));

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
  }),
);

/** `POST /v1/tools/:name`: the direct call's outcome; a scratch thread adds `scratchWorkspace`, and `sessionId` while its call waits. */
export const DirectCallAnswer = named(
  "DirectCallAnswer",
  z.object({
    ok: z.boolean(),
    toolName: z.string(),
    callId: z.string(),
    isError: z.boolean(),
    result: z.string().nullable(),
    error: z.string().optional(),
    durationMs: z.number(),
    attempts: count,
    status: z.string(),
    scratchWorkspace: z.literal(true).optional(),
    sessionId: z.string().optional(),
  }),
);

export const FileInfo = named("FileInfo", z.object({ path: z.string(), mimeType: z.string(), size: count, createdAt: epochMs }));

/** `GET /threads/:id/files`. */
export const FileList = named("FileList", z.object({ files: z.array(FileInfo) }));

/** `DELETE` of a file or an account env value: whether there was one to remove. */
export const Deleted = named("Deleted", z.object({ deleted: z.boolean() }));

/** `DELETE /threads/:id`. */
export const ThreadDeleted = named("ThreadDeleted", z.object({ deleted: z.literal(true) }));

/** `POST /threads/:id/stop`: whether a turn was stopped. */
export const Stopped = named("Stopped", z.object({ stopped: z.boolean() }));

/** `GET /account`: the verified caller. */
export const Account = named("Account", z.object({ userId: z.string(), name: z.string(), roles: z.array(z.string()), admin: z.boolean() }));

/** `GET /account/env`: text values shown, secret values only by type. */
export const AccountEnv = named(
  "AccountEnv",
  z.object({ env: z.record(z.string(), z.union([z.object({ value: z.string(), type: z.literal("text") }), z.object({ type: z.literal("secret") })])) }),
);

/** `PUT /account/env/:name`. */
export const AccountEnvSet = named("AccountEnvSet", z.object({ name: z.string(), type: z.enum(["text", "secret"]) }));

export const ToolListing = named(
  "ToolListing",
  z.object({
    name: z.string(),
    description: z.string(),
    inputSchema: z.record(z.string(), z.unknown()),
    outputSchema: z.record(z.string(), z.unknown()).nullable(),
    effect: z.enum(["read", "write", "idempotent", "reconcilable", "predicate"]),
    endsTurn: z.boolean(),
    needsApproval: z.union([z.boolean(), z.literal("predicate")]),
  }),
);

/** `GET /v1/tools`. */
export const ToolList = named("ToolList", z.object({ tools: z.array(ToolListing), configHash: z.string() }));

/** `GET /` as JSON. */
export const Index = named("Index", z.object({ name: z.string(), agents: z.array(z.string()), tools: z.array(z.string()), routes: z.array(z.string()), caller: z.string() }));

/** `GET /threads/:id/chat`: AI SDK UI messages (their parts as the AI SDK defines them). */
export const ChatHistory = named(
  "ChatHistory",
  z.object({
    messages: z.array(z.object({ id: z.string(), role: z.enum(["system", "user", "assistant"]), metadata: z.unknown().optional(), parts: z.array(z.looseObject({ type: z.string() })) })),
    hasMore: z.boolean(),
  }),
);

const JsonRpcAnswer = z.union([
  z.object({ jsonrpc: z.literal("2.0"), id: z.union([z.string(), z.number()]), result: z.record(z.string(), z.unknown()) }),
  z.object({
    jsonrpc: z.literal("2.0"),
    id: z.union([z.string(), z.number(), z.null()]).optional(),
    error: z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }),
  }),
]);

/** `POST /mcp`: a JSON-RPC 2.0 answer, or a batch of them. */
export const McpAnswer = named("McpAnswer", z.union([JsonRpcAnswer, z.array(JsonRpcAnswer)]));

/** `GET /openapi.json`: an OpenAPI 3.1 document. */
export const OpenApiDocument = named(
  "OpenApiDocument",
  z.looseObject({ openapi: z.string(), info: z.looseObject({ title: z.string(), version: z.string() }), paths: z.record(z.string(), z.unknown()) }),
);

/** Every registered response schema as JSON Schema, for `components.schemas`; references between them are `#/components/schemas/<id>`. */
export function responseComponents(): Record<string, unknown> {
  const { schemas } = z.toJSONSchema(responseSchemas, { uri: (id) => `#/components/schemas/${id}` });
  // OpenAPI 3.1's dialect is the document's: no `$schema` per component; each is found by its
  // place in the document, so no `$id` either (a `$id` may not be a fragment).
  return Object.fromEntries(Object.entries(schemas).map(([id, { $schema: _s, $id: _i, ...schema }]) => [id, schema]));
}

/** The `$ref` of a registered schema. @throws Error for a schema not registered (a response without a name). */
export function refOf(schema: z.ZodType): { $ref: string } {
  const id = responseSchemas.get(schema)?.id;
  if (!id) throw new Error("response schema not registered in responseSchemas");
  return { $ref: `#/components/schemas/${id}` };
}
