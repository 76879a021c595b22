/**
 * Every route's response bodies, in one place (with the records they carry, response-records.ts):
 * zod schemas of what each route answers, each registered under the name it has in the OpenAPI
 * document (`components.schemas`), and turned into JSON Schema there by zod's `z.toJSONSchema`
 * (response-registry.ts). Each schema is tied to the TypeScript type the
 * server builds the answer from (see response-types.ts), so the two cannot drift apart unnoticed:
 * `npm run typecheck` fails when one changes without the other. test/http/openapi-responses.test.ts
 * checks real answers of every operation against the document.
 * @module
 */
import * as z from "zod";
import { ERROR_CODES, type ErrorCode } from "../errors.js";
import { CallRecord, Message, ModelTool, TurnRecord } from "./response-records.js";
import { count, epochMs, named, side } from "./response-registry.js";

/** The stored records' schemas (turns, messages, tool results, call records and outcomes, model tools), so routes import every response schema from here. */
export * from "./response-records.js";
/** The usage routes' schemas (usage-responses.ts). */
export * from "./usage-responses.js";
/** The registry of named schemas and its OpenAPI components (response-registry.ts). */
export { type Body, refOf, responseComponents, responseSchemas } from "./response-registry.js";

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

/** What `POST /threads` answers: the thread's record. */
export const ThreadMeta = named(
  "ThreadMeta",
  z.object({
    threadId: z.string(),
    agentId: z.string(),
    userId: z.string().nullable(),
    createdAt: epochMs,
    branchId: z.string().optional().describe("The first part of its calls' effect keys (`<branchId>:<callId>`): new with each thread made on this id"),
    arguments: z.record(z.string(), z.unknown()),
    dryRun: z.boolean(),
    asOf: z.string().optional(),
    ephemeral: z.boolean(),
    counted: z.literal(true).optional(),
    parent: z.object({ threadId: z.string(), callId: z.string() }).optional(),
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
    agentMissing: z.object({ code: z.enum(["agent_not_found", "invalid_config"]), message: z.string() }).optional(),
  }),
);

/** `GET /threads`: a page of the caller's threads, newest first. */
export const ThreadPage = named(
  "ThreadPage",
  z.object({ threads: z.array(z.object({ threadId: z.string(), agentId: z.string(), createdAt: epochMs })), nextCursor: z.string().nullable() }),
);

/** `GET /account/waiting`: the calls that wait for a person in a page of the caller's threads. */
export const WaitingPage = named(
  "WaitingPage",
  z.object({
    calls: z.array(
      z.object({
        threadId: z.string(),
        agentId: z.string(),
        callId: z.string(),
        toolName: z.string(),
        status: z.enum(["awaiting_approval", "parked"]),
        reason: z.string().optional().describe("Why it is parked; absent for an approval"),
        since: epochMs.describe("When the call was made (milliseconds since the Unix epoch)"),
      }),
    ),
    problems: z.array(z.object({ threadId: z.string(), code: z.string(), message: z.string() })).describe("Threads of this page that could not be read (gone, or failing)"),
    more: z.array(z.string()).describe("Threads with more waiting calls than this page shows: GET /threads/{id}/calls?status= lists them all"),
    nextCursor: z.string().nullable(),
  }),
);

/** `GET /threads/:id/messages`. */
export const MessagePage = named("MessagePage", z.object({ messages: z.array(Message), total: count, hasMore: z.boolean() }));

/** `POST /threads/:id/messages`: queued behind a turn, or stored (`message`) and its turn started. */
export const PostedMessage = named("PostedMessage", z.object({ queued: z.boolean(), message: Message.optional() }));

/** `GET /threads/:id/calls`. */
export const CallList = named("CallList", z.object({ calls: z.array(CallRecord), hasMore: z.boolean().describe("More calls follow this page (past 1000 calls or 4 MiB of JSON): ask again with ?offset= the calls read so far") }));

/** `POST /v1/tools/:name`: the direct call's outcome (`argsHash` while it awaits approval); a scratch thread adds `scratchWorkspace`, and `sessionId` while its call waits. */
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
    argsHash: z.string().optional().describe("Only while awaiting_approval: the call's argsHash, as GET /threads/{id}/calls shows it; send it to .../approve to bind the approval to these arguments"),
    scratchWorkspace: z.literal(true).optional(),
    sessionId: z.string().optional(),
  }),
);

/** A thread's file: path, type, size and when it was written. */
export const FileInfo = named("FileInfo", z.object({ path: z.string(), mimeType: z.string(), size: count, createdAt: epochMs }));

/** `GET /threads/:id/files`. */
export const FileList = named("FileList", z.object({ files: z.array(FileInfo), nextCursor: z.string().nullable().describe("Ask again with ?cursor= this (the page's last path) for the files that follow; null on the last page") }));

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

/** `POST /mcp-oauth/complete`: the connection made, and the thread whose call goes on. */
export const McpAuthorized = named("McpAuthorized", z.object({ connected: z.literal(true), server: z.string(), threadId: z.string() }));

/** `GET /account/mcp-connections`: the caller's OAuth connections to MCP servers (never a token). */
export const McpConnections = named(
  "McpConnections",
  z.object({ connections: z.array(z.object({ server: z.string(), url: z.string(), expiresAt: z.number().nullable(), updatedAt: z.number() })) }),
);

/** `POST /mcp-servers`: a server the caller added (its definition as `defineMcpServer` returns it). */
export const UserMcpServer = named("UserMcpServer", z.object({ name: z.string(), definition: z.record(z.string(), z.unknown()), createdAt: z.number() }));

/** `GET /mcp-servers`: the servers the caller added. */
export const UserMcpServers = named("UserMcpServers", z.object({ servers: z.array(UserMcpServer) }));

/** A tool as `GET /v1/tools` lists it: schemas, effect, endsTurn, needsApproval, and who runs it when weft does not (`executionMode`). */
export const ToolListing = named(
  "ToolListing",
  z.object({
    name: z.string(),
    description: z.string(),
    inputSchema: z.record(z.string(), z.unknown()),
    outputSchema: z.record(z.string(), z.unknown()).nullable(),
    effect: z.enum(["read", "write", "idempotent", "reconcilable", "predicate"]).describe("The class its calls are judged under (retry, recovery, dry run); for a client or provider tool as well"),
    endsTurn: z.boolean(),
    needsApproval: z.union([z.boolean(), z.literal("predicate")]),
    executionMode: z
      .enum(["client", "provider"])
      .optional()
      .describe("Absent for a tool weft runs. client: the thread's client answers the model's call (POST /threads/{id}/calls/{callId}/result); provider: the model's provider runs it. Only a model calls either"),
  }),
);

/** A remote MCP server's tool as `GET /v1/tools` lists it under `remote`: a tool listing and its server. */
export const RemoteToolListing = named("RemoteToolListing", ToolListing.extend({ server: z.string() }));

/** `GET /v1/tools`: the local tools and their `configHash`; `remote` (when the registry declares MCP servers): their tools for the caller, and why any offer fewer. */
export const ToolList = named(
  "ToolList",
  z.object({
    tools: z.array(ToolListing),
    configHash: z.string(),
    remote: z.object({ tools: z.array(RemoteToolListing), problems: z.array(z.object({ server: z.string(), tool: z.string().optional(), code: z.string(), reason: z.string() })) }).optional(),
  }),
);

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

