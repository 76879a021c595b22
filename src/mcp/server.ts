/**
 * weft's tools as an MCP server (Model Context Protocol, via `@modelcontextprotocol/sdk`):
 * `tools/list` advertises every tool weft runs (not client or provider tools, which only a model
 * can call) with its input and output JSON Schemas and annotations derived from its effect;
 * `tools/call` hands the call to the caller-supplied function, which runs it through the dispatch
 * pipeline exactly like `POST /v1/tools/:name`.
 * @module
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { type CallToolRequest, type CallToolResult, CallToolRequestSchema, ErrorCode, InitializeRequestSchema, JSONRPCMessageSchema, ListToolsRequestSchema, type Tool, type ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker-provider.js";
import { type ErrorCode as ErrorCodeName, WeftError } from "../errors.js";
import { waitsForPersonStatus } from "../protocol.js";
import { SCRATCH_TTL_MS } from "../thread/guard.js";
import { type ToolListing, availableTools } from "../tools/catalog.js";
import { formatPath } from "../tools/json-schema/compile.js";
import { describeIssues } from "../tools/schema.js";
import type { Effect } from "../tools/types.js";
import { loneSurrogateAt } from "../json-shape.js";
import { REDACTED } from "../secrets/redact.js";

/**
 * MCP tool annotations for each declared effect. A predicate decides per input, so it claims
 * nothing and MCP's defaults (may write, may destroy) apply. `idempotent` says `destructiveHint`
 * outright: a client reading the hints as weft does (src/remote/remote-tools.ts) counts a bare
 * `idempotentHint` as a write, and an idempotent call may still change things, so it is `true`.
 */
export const EFFECT_ANNOTATIONS: Readonly<Record<Effect | "predicate", ToolAnnotations>> = {
  read: { readOnlyHint: true },
  idempotent: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  reconcilable: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
  write: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
  predicate: {},
};

/** `_meta` keys of a `tools/call` request that name the weft session (thread) to run in. */
export const SESSION_META = { sessionId: "weft/sessionId", continuationToken: "weft/continuationToken" } as const;

/**
 * weft's effect-key extension of MCP, announced as the experimental capability of this name: a
 * client sends a call's effect key as `_meta["weft/effectKey"]` (1 to 255 visible ASCII
 * characters, stable across its retries), and the server runs a given key at most once per
 * caller, answering a repeat with the recorded answer (docs/remote-mcp.md). A keyed call whose
 * outcome the server cannot give yet (its first run still goes on, or was cut by a restart) is
 * answered JSON-RPC error -32603 (internal error): the client asks again with the same key.
 */
export const EFFECT_KEY_META = "weft/effectKey";

/**
 * The extension's capability: its version, and how long a key's answer is kept (`windowMs`): a
 * call without a session keeps it in its scratch thread, which lives {@link SCRATCH_TTL_MS} (a call
 * in a session keeps it longer, for the Idempotency-Key window), so the window is the shorter.
 */
export const EFFECT_KEY_CAPABILITY = { version: 1, windowMs: SCRATCH_TTL_MS } as const;

/** A direct call's answer as the MCP server needs it (a subset of `POST /v1/tools/:name`'s body). */
export interface McpCallAnswer {
  isError: boolean;
  result: string | null;
  error?: string;
  status: string;
  callId: string;
  sessionId?: string;
  /** While `awaiting_approval`: the call's argsHash, to approve these arguments only. */
  argsHash?: string;
}

/** What the server runs: the listing, and one direct call (throwing WeftErrors as `POST /v1/tools/:name` does). */
export interface McpBackend {
  tools(): readonly ToolListing[];
  call(name: string, input: unknown, session: { sessionId?: string; continuationToken?: string }, effectKey?: string): Promise<McpCallAnswer>;
}

/** An output schema MCP can carry: MCP requires `type: "object"` at its root. */
function objectSchema(schema: Record<string, unknown> | null): Tool["outputSchema"] | undefined {
  return schema && schema.type === "object" ? (schema as Tool["outputSchema"]) : undefined;
}

/** One `tools/list` entry. */
export function mcpTool(t: ToolListing): Tool {
  const outputSchema = objectSchema(t.outputSchema);
  return {
    name: t.name,
    description: t.description,
    inputSchema: t.inputSchema as Tool["inputSchema"],
    ...(outputSchema ? { outputSchema } : {}),
    annotations: EFFECT_ANNOTATIONS[t.effect],
    _meta: { "weft/effect": t.effect, "weft/needsApproval": t.needsApproval, "weft/endsTurn": t.endsTurn },
  };
}

const text = (s: string) => [{ type: "text" as const, text: s }];

/** A call's answer as a `tools/call` result; `structuredContent` when the tool has an object output schema. */
export function mcpResult(answer: McpCallAnswer, tool: ToolListing): CallToolResult {
  const meta = {
    "weft/callId": answer.callId,
    "weft/status": answer.status,
    ...(answer.sessionId ? { [SESSION_META.sessionId]: answer.sessionId } : {}),
    ...(answer.argsHash ? { "weft/argsHash": answer.argsHash } : {}),
  };
  if (waitsForPersonStatus(answer.status)) {
    // Not a result yet: a person has to act in weft first; the model learns that, and where.
    const where = answer.sessionId ? ` in session ${answer.sessionId}` : "";
    const act = answer.status === "awaiting_approval" ? "approve or deny it" : "settle it";
    return { isError: true, content: text(`${tool.name} is waiting for a person (${answer.status}): call ${answer.callId}${where}; ${act} through weft, then read the call for its result`), _meta: meta };
  }
  if (answer.isError) return { isError: true, content: text(answer.error ?? answer.result ?? "error"), _meta: meta };
  const body = answer.result ?? "";
  if (objectSchema(tool.outputSchema)) {
    // The pipeline checked the output against the schema, so it was JSON of an object; redacted, it
    // is JSON still (src/secrets/json-text.ts) but may be of another shape (a secret spanning a key,
    // a number that held one become the marker's string): checked again, as clients check it, and
    // when unfit the text is all there is. MCP asks a result of a tool with an output schema for
    // structuredContent unless it is an error (SDK clients refuse it otherwise), so it goes as an
    // error that says the call ran.
    const structured = jsonObject(body);
    if (!structured || (body.includes(REDACTED) && !fitsSchema(tool.outputSchema!, structured))) {
      return { isError: true, content: text(`${tool.name} ran and succeeded (call ${answer.callId}), but redacting a secret left its result unfit for the tool's output schema, so it has no structured content; its text follows.\n${body}`), _meta: { ...meta, "weft/structuredContent": "withheld: redacting a secret left the result unfit for the output schema; the text is the result" } };
    }
    return { content: text(body), structuredContent: structured, _meta: meta };
  }
  return { content: text(body), _meta: meta };
}

/** Whether `value` conforms to `schema`, checked as the MCP SDK checks structured content. */
function fitsSchema(schema: Record<string, unknown>, value: unknown): boolean {
  return new CfWorkerJsonSchemaValidator().getValidator(schema as Parameters<CfWorkerJsonSchemaValidator["getValidator"]>[0])(value).valid;
}

/** `body` parsed, when it is JSON of an object. */
function jsonObject(body: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(body) as unknown;
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** A refusal before the tool ran, as the `isError` result MCP asks for (the model can correct its input). */
function refusal(err: WeftError): CallToolResult {
  const issues = (err.details as { issues?: unknown } | undefined)?.issues;
  return { isError: true, content: text(`${err.code}: ${err.message}`), _meta: { "weft/errorCode": err.code, ...(issues ? { "weft/issues": issues } : {}) } };
}

/**
 * A JSON-RPC error the SDK answers as is. Not `McpError`: its message already starts with
 * "MCP error <code>: ", and the SDK client prefixes that again on receipt.
 */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** `path: problem` for each issue (`params.arguments: expected an object`). */
function issuesText(issues: Parameters<typeof describeIssues>[0]): string {
  return describeIssues(issues)
    .map((i) => i.message.replace(/expected record\b/, "expected an object"))
    .join("; ");
}

/**
 * A session's `unknown_tool` message naming as available only the tools of its agent a `tools/call`
 * reaches (those `tools/list` offers): the thread lists every tool its agent offers, remote MCP
 * tools too, which this server refuses by name before any thread is asked. Made here, not edited
 * from the thread's message: a list that reads differently there (redacted) must not go out whole.
 */
function reachableOnly(name: string, err: WeftError, offered: readonly ToolListing[]): string {
  const available = (err.details as { available?: unknown } | undefined)?.available;
  const reachable = new Set(offered.map((t) => t.name));
  const names = Array.isArray(available) ? available.filter((n): n is string => typeof n === "string" && reachable.has(n)) : [];
  return `unknown tool ${JSON.stringify(name)}; ${availableTools(names)}`;
}

/** An MCP server over `backend` (one per request: the transport is stateless). */
export function createMcpServer(backend: McpBackend, version: string): Server {
  const server = new Server(
    { name: "weft", version },
    { capabilities: { tools: { listChanged: false }, experimental: { [EFFECT_KEY_META]: { ...EFFECT_KEY_CAPABILITY } } }, jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
  );
  // A client or provider tool only a model's step can call (tool_not_callable otherwise): not offered.
  // Called by name anyway, it is still found below, so the refusal says why.
  const offered = () => backend.tools().filter((t) => t.executionMode === undefined);
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: offered().map(mcpTool) }));
  const callTool = async ({ name, arguments: input, _meta }: CallToolRequest["params"]): Promise<CallToolResult> => {
    const tool = backend.tools().find((t) => t.name === name);
    // An unknown tool is a protocol error (MCP's tools spec), not a result the model reads.
    if (!tool) throw new RpcError(ErrorCode.InvalidParams, `unknown tool ${JSON.stringify(name)}; ${availableTools(offered().map((t) => t.name))}`);
    // A session named with the wrong type is refused: dropped, the call would run in a scratch thread instead.
    const session: { sessionId?: string; continuationToken?: string } = {};
    for (const [field, expected] of [["sessionId", "a thread id"], ["continuationToken", "<channelId>:<key>"]] as const) {
      const value = _meta?.[SESSION_META[field]];
      if (value === undefined) continue;
      if (typeof value !== "string") return refusal(new WeftError("invalid_request", `_meta.${SESSION_META[field]}: expected a string (${expected})`, { path: ["_meta", SESSION_META[field]] }));
      // Held to what every other body is: two names differing in a lone surrogate would be one once encoded.
      if (loneSurrogateAt(value) !== -1) return refusal(new WeftError("invalid_request", `_meta.${SESSION_META[field]}: holds a lone surrogate (not text)`, { path: ["_meta", SESSION_META[field]] }));
      session[field] = value;
    }
    const effectKey = _meta?.[EFFECT_KEY_META];
    if (effectKey !== undefined && (typeof effectKey !== "string" || !/^[\x21-\x7e]{1,255}$/.test(effectKey))) {
      return refusal(new WeftError("invalid_request", `_meta.${EFFECT_KEY_META}: expected 1 to 255 visible ASCII characters`, { path: ["_meta", EFFECT_KEY_META] }));
    }
    try {
      return mcpResult(await backend.call(name, input ?? {}, session, effectKey), tool);
    } catch (err) {
      // The thread running the call failed under it (a restart): its outcome is not known here.
      if (!(err instanceof WeftError)) throw new RpcError(ErrorCode.InternalError, `the run of ${name} was cut before it answered (${err instanceof Error ? err.message : String(err)}); its outcome is not known yet`);
      if (err.code === "unknown_tool") throw new RpcError(ErrorCode.InvalidParams, reachableOnly(name, err, offered()));
      // The extension's "outcome not known yet": the key's first call still runs; ask again with it.
      if (err.code === "idempotency_key_in_use" && effectKey !== undefined) throw new RpcError(ErrorCode.InternalError, err.message);
      if (err.status >= 500) throw new RpcError(ErrorCode.InternalError, err.message);
      return refusal(err);
    }
  };
  // tools/call goes through the fallback, not setRequestHandler: the SDK's registered handler parses
  // params with zod first and answers a client's mistake as an internal error with the raw issues.
  server.fallbackRequestHandler = async (request) => {
    if (request.method !== "tools/call") throw new RpcError(ErrorCode.MethodNotFound, `method not found: ${request.method}`);
    const parsed = CallToolRequestSchema.safeParse(request);
    if (!parsed.success) throw new RpcError(ErrorCode.InvalidParams, issuesText(parsed.error.issues));
    return callTool(parsed.data.params);
  };
  return server;
}

/** Messages one JSON-RPC batch may hold. */
const MAX_BATCH = 16;

/** Why a parsed body is not a JSON-RPC 2.0 message or a non-empty batch of them (`undefined` when it is). */
function notJsonRpc(body: unknown): { message: string; path: (string | number)[] } | undefined {
  if (Array.isArray(body) && body.length === 0) return { message: "body: an empty batch is not a JSON-RPC request", path: [] };
  const messages = Array.isArray(body) ? body : [body];
  // A batch (gone from MCP since 2025-06-18) may not hold more work than one request does elsewhere:
  // one call at most, every call running in a thread of its own.
  if (messages.length > MAX_BATCH) return { message: `body: a batch holds at most ${MAX_BATCH} messages`, path: [] };
  const calls = messages.flatMap((m, i) => ((m as { method?: unknown } | null)?.method === "tools/call" ? [i] : []));
  if (calls.length > 1) return { message: `${formatPath([calls[1]!])}: a batch holds one tools/call at most; send each in a request of its own`, path: [calls[1]!] };
  for (const [i, message] of messages.entries()) {
    const parsed = JSONRPCMessageSchema.safeParse(message);
    if (parsed.success) continue;
    const at = Array.isArray(body) ? [i] : [];
    const where = (key?: string) => (key === undefined ? (at.length ? formatPath(at) : "body") : formatPath([...at, key]));
    const m = message as Record<string, unknown> | null;
    if (typeof m !== "object" || m === null || Array.isArray(m)) return { message: `${where()}: expected a JSON-RPC message (an object)`, path: at };
    if (m.jsonrpc !== "2.0") return { message: `${where("jsonrpc")}: expected "2.0" (a JSON-RPC 2.0 message)`, path: [...at, "jsonrpc"] };
    if (!("method" in m) && !("result" in m) && !("error" in m)) return { message: `${where("method")}: expected a string (a JSON-RPC request or notification)`, path: [...at, "method"] };
    // The schema is a union, whose issues name no field ("input: Unrecognized key") for these.
    if ("id" in m && typeof m.id !== "string" && !Number.isSafeInteger(m.id) && !(m.id === null && "error" in m)) return { message: `${where("id")}: expected a string or an integer (a JSON-RPC id)`, path: [...at, "id"] };
    if ("method" in m && ("result" in m || "error" in m)) return { message: `${where("method")}: a message is a request or an answer, so it holds a method or a result or error, not both`, path: [...at, "method"] };
    if ("params" in m && (typeof m.params !== "object" || m.params === null || Array.isArray(m.params))) return { message: `${where("params")}: expected an object (MCP's params are named)`, path: [...at, "params"] };
    return { message: issuesText(parsed.error.issues), path: at };
  }
  return Array.isArray(body) ? unanswerable(body as { id?: unknown; method?: unknown; params?: { requestId?: unknown } }[]) : undefined;
}

/**
 * A batch the transport would leave unanswered: it answers a body once every request in it has an
 * answer, keyed by id, and the SDK sends none for a request cancelled meanwhile. So two requests
 * sharing an id get one answer, and a `notifications/cancelled` naming a request of its own batch
 * hung the body until the runtime cut it (a 5xx), the call having run. A call, once begun, runs on
 * in its thread anyway: there is nothing for a cancellation in the same body to stop.
 */
function unanswerable(batch: readonly { id?: unknown; method?: unknown; params?: { requestId?: unknown } }[]): { message: string; path: (string | number)[] } | undefined {
  const ids = new Set<unknown>();
  for (const [i, m] of batch.entries()) {
    if (typeof m.method !== "string" || m.id === undefined) continue;
    if (ids.has(m.id)) return { message: `${formatPath([i, "id"])}: another request of this batch has the id ${JSON.stringify(m.id)}; give each its own`, path: [i, "id"] };
    ids.add(m.id);
  }
  for (const [i, m] of batch.entries()) {
    if (m.method === "notifications/cancelled" && ids.has(m.params?.requestId)) {
      return { message: `${formatPath([i, "params", "requestId"])}: names a request of this same batch, which runs to its end whatever comes with it; send a cancellation in a request of its own`, path: [i, "params", "requestId"] };
    }
  }
  return undefined;
}

/** The request schemas whose mismatch the SDK would answer as an internal error. */
const PARAMS_CHECKED: Readonly<Record<string, { safeParse(v: unknown): { success: boolean; error?: { issues: Parameters<typeof describeIssues>[0] } } }>> = {
  initialize: InitializeRequestSchema,
  "tools/list": ListToolsRequestSchema,
};

/**
 * Why a request's params are wrong, where the SDK would answer -32603 (internal error), which
 * the effect-key extension reads as "the outcome is not known yet: ask again": a params shape
 * its schema refuses, or a `tools/call` asking for a task (weft announces no tasks capability).
 */
function badParams(message: unknown): string | undefined {
  const m = message as { method?: unknown; params?: unknown };
  if (m.method === "tools/call" && typeof m.params === "object" && m.params !== null && "task" in m.params) {
    return "params.task: weft runs a tools/call at once, never as a task (it announces no tasks capability); send the call without it";
  }
  const parsed = typeof m.method === "string" ? PARAMS_CHECKED[m.method]?.safeParse(message) : undefined;
  return parsed && !parsed.success ? issuesText(parsed.error!.issues) : undefined;
}

/** The body as JSON, or `undefined` when it does not parse (the transport answers that with a parse error). */
async function jsonOf(request: Request): Promise<{ value: unknown } | undefined> {
  try {
    return { value: JSON.parse(await request.clone().text()) as unknown };
  } catch {
    return undefined;
  }
}

/** weft's code for each HTTP status the transport refuses with (the JSON-RPC code goes in `details`). */
const REFUSALS: Readonly<Record<number, ErrorCodeName>> = {
  400: "invalid_request",
  404: "not_found",
  405: "method_not_allowed",
  406: "not_acceptable",
  413: "payload_too_large",
  415: "unsupported_media_type",
};

/**
 * Answers one Streamable HTTP request (stateless: no `Mcp-Session-Id`, JSON answers).
 * Only `POST` carries requests; `GET` (a server-initiated stream) and `DELETE` (ending a
 * session) mean nothing without sessions, so they are `405` with an `Allow` header. Like every
 * weft refusal, an HTTP-level one (`4xx`) has the body `{ error: { code, message, details? } }`;
 * JSON-RPC errors inside a `200` answer keep the protocol's own shape.
 */
export async function handleMcpRequest(request: Request, backend: McpBackend, version: string): Promise<Response> {
  if (request.method !== "POST") {
    const refusal = new WeftError("method_not_allowed", `${request.method} /mcp: this MCP server is stateless, so it takes requests by POST only`);
    return refusal.toResponse({ allow: "POST" });
  }
  // JSON that is not JSON-RPC: the SDK calls that a parse error (-32700) and lets an empty batch through.
  const body = await jsonOf(request);
  const wrong = body && notJsonRpc(body.value);
  if (wrong) {
    const refusal = new WeftError("invalid_request", wrong.message, { path: wrong.path, jsonRpcCode: ErrorCode.InvalidRequest });
    return refusal.toResponse();
  }
  const messages = body === undefined ? [] : Array.isArray(body.value) ? body.value : [body.value];
  for (const [i, message] of messages.entries()) {
    const bad = badParams(message);
    if (bad === undefined) continue;
    // One request: its JSON-RPC error; in a batch, the batch is refused naming the message.
    if (!Array.isArray(body!.value)) return Response.json({ jsonrpc: "2.0", id: (message as { id?: unknown }).id ?? null, error: { code: ErrorCode.InvalidParams, message: bad } });
    return new WeftError("invalid_request", `${formatPath([i])}: ${bad}`, { path: [i], jsonRpcCode: ErrorCode.InvalidParams }).toResponse();
  }
  const server = createMcpServer(backend, version);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  let res: Response;
  try {
    res = await transport.handleRequest(request, body ? { parsedBody: body.value } : {});
  } finally {
    // With JSON answers the response is complete here; closing frees the server's handlers.
    void server.close();
  }
  if (res.status < 400) return res;
  const text = await res.text();
  let rpc: { code?: unknown; message?: unknown } | undefined;
  try {
    rpc = (JSON.parse(text) as { error?: { code?: unknown; message?: unknown } }).error;
  } catch {
    rpc = undefined;
  }
  const code = rpc?.code === ErrorCode.ParseError ? "invalid_json" : (REFUSALS[res.status] ?? "internal_error");
  const refusal = new WeftError(code, typeof rpc?.message === "string" ? rpc.message : text.slice(0, 500) || `HTTP ${res.status}`, {
    ...(typeof rpc?.code === "number" ? { jsonRpcCode: rpc.code } : {}),
  });
  return refusal.toResponse();
}
