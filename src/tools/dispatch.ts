/**
 * The one dispatch pipeline. Model calls, direct HTTP calls, `queueTool` and `invokeTool` all come
 * through `dispatch`; it is the only place a tool's `execute` is called (DESIGN.md).
 *
 * parse JSON -> validate -> journal (started) -> execute -> normalise -> output check -> record -> emit
 * @module
 */
import { WeftError, errorMessage } from "../errors.js";
import type { CallRecord, CallSource, CallStatus, EventPayloads, ToolResult } from "../protocol.js";
import type { CompiledTool, ToolCatalog } from "./catalog.js";
import { normalizeResult, resultFromThrown } from "./result.js";
import { validate } from "./schema.js";
import type { ThreadState } from "./thread-state.js";
import type { ToolCallContext } from "./types.js";

/** The call journal as dispatch needs it; the thread's `CallStore` implements it. */
export interface CallJournal {
  get(callId: string): CallRecord | undefined;
  insert(call: {
    callId: string;
    toolName: string;
    source: CallSource;
    status: "queued" | "started";
    argsText: string;
    input?: unknown;
    effectKey: string;
    turnId?: string;
    parentCallId?: string;
  }): void;
  start(callId: string, input: unknown): void;
  finish(callId: string, status: CallStatus, result: ToolResult, attempts: number, durationMs: number): boolean;
}

/** What the thread provides to the pipeline. */
export interface DispatchHost {
  /** `<branchId>` of effect keys; a thread is its own branch unless forked (seed-002). */
  readonly branchId: string;
  readonly catalog: ToolCatalog;
  readonly journal: CallJournal;
  /** Stores and broadcasts an event. */
  emit<K extends keyof EventPayloads>(type: K, data: EventPayloads[K]): void;
  /** The `ThreadState` handed to `execute`, bound to this call (for `uses`, queue parent). */
  stateFor(call: { callId: string; tool: CompiledTool; turnId?: string }): ThreadState;
  /** Aborted when the thread is stopped. */
  readonly signal: AbortSignal;
}

/** One call to dispatch. `args` is raw model text or an already-structured value. */
export interface CallRequest {
  callId: string;
  toolName: string;
  args: { text: string } | { value: unknown };
  source: CallSource;
  turnId?: string;
  parentCallId?: string;
}

/** How a call ended. */
export interface CallOutcome {
  callId: string;
  toolName: string;
  /** Arguments as received, for history entries of queued calls. */
  argsText: string;
  status: CallStatus;
  result: ToolResult;
  isError: boolean;
  /** Code of a refusal before execute (`unknown_tool`, `invalid_tool_input`). */
  errorCode?: WeftError["code"];
  /** Details of the refusal, such as the failing `path`. */
  errorDetails?: Record<string, unknown>;
  durationMs: number;
  attempts: number;
  /** A successful call of an `endsTurn` tool. */
  endsTurn: boolean;
}

/** `effectKey = <branchId>:<callId>` (seed-002), stable across retries and restarts. */
export function effectKeyOf(branchId: string, callId: string): string {
  return `${branchId}:${callId}`;
}

/** Parses raw argument text; empty text means no arguments. */
function parseArgs(args: CallRequest["args"]): { ok: true; value: unknown } | { ok: false; message: string } {
  if (!("text" in args)) return { ok: true, value: args.value ?? {} };
  if (args.text.trim() === "") return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(args.text) as unknown };
  } catch (e) {
    return { ok: false, message: `arguments are not valid JSON (${errorMessage(e)}); raw text: ${args.text.slice(0, 200)}` };
  }
}

/** Validates the parsed value against the tool's schema; a tool without `args` takes `{}`. */
function validateInput(tool: CompiledTool, value: unknown): { ok: true; input: unknown } | { ok: false; error: WeftError } {
  if (tool.args === null) {
    const isEmptyObject = value !== null && typeof value === "object" && !Array.isArray(value) && Object.keys(value).length === 0;
    if (isEmptyObject) return { ok: true, input: undefined };
    const extra = value !== null && typeof value === "object" && !Array.isArray(value) ? Object.keys(value)[0] : undefined;
    const message = extra ? `${extra}: this tool takes no arguments` : "input: this tool takes no arguments";
    return { ok: false, error: new WeftError("invalid_tool_input", message, { path: extra ? [extra] : [] }) };
  }
  const checked = validate(tool.args, value);
  if (checked.ok) return { ok: true, input: checked.data };
  const first = checked.issues[0]!;
  return {
    ok: false,
    error: new WeftError("invalid_tool_input", checked.issues.map((i) => i.message).join("; "), {
      path: first.path,
      issues: checked.issues,
    }),
  };
}

function outcomeOf(record: CallRecord, endsTurn: boolean): CallOutcome {
  const result = record.result ?? { status: "error", error: "call has no result" };
  return {
    callId: record.callId,
    toolName: record.toolName,
    argsText: record.argsText,
    status: record.status,
    result,
    isError: result.status === "error",
    durationMs: record.durationMs ?? 0,
    attempts: record.attempts,
    endsTurn: endsTurn && result.status === "success",
  };
}

/**
 * Runs one call through the pipeline and records exactly one final result for its id.
 * A call id that already has a final result returns that result and runs nothing.
 * Never throws for a tool's failure or a bad input: those are error results.
 */
export async function dispatch(host: DispatchHost, request: CallRequest): Promise<CallOutcome> {
  const startedAt = Date.now();
  const existing = host.journal.get(request.callId);
  if (existing && existing.status !== "queued" && existing.status !== "started") {
    return outcomeOf(existing, host.catalog.has(existing.toolName) && host.catalog.get(existing.toolName).def.endsTurn === true);
  }
  const argsText = "text" in request.args ? request.args.text : JSON.stringify(request.args.value ?? {});
  const effectKey = effectKeyOf(host.branchId, request.callId);

  const refuse = (error: WeftError): CallOutcome => {
    const result: ToolResult = { status: "error", error: `${error.code}: ${error.message}` };
    const durationMs = Date.now() - startedAt;
    if (!existing) {
      host.journal.insert({ ...baseRow(request, argsText, effectKey), status: "queued" });
    }
    host.journal.finish(request.callId, "failed", result, 0, durationMs);
    host.emit("tool_call_finished", {
      callId: request.callId,
      toolName: request.toolName,
      source: request.source,
      status: "failed",
      isError: true,
      error: result.error!,
      durationMs,
      attempts: 0,
    });
    const outcome: CallOutcome = {
      callId: request.callId,
      toolName: request.toolName,
      argsText,
      status: "failed",
      result,
      isError: true,
      errorCode: error.code,
      durationMs,
      attempts: 0,
      endsTurn: false,
    };
    if (error.details) outcome.errorDetails = error.details;
    return outcome;
  };

  let tool: CompiledTool;
  try {
    tool = host.catalog.get(request.toolName);
  } catch (e) {
    return refuse(e instanceof WeftError ? e : new WeftError("invalid_config", errorMessage(e)));
  }
  const parsed = parseArgs(request.args);
  if (!parsed.ok) return refuse(new WeftError("invalid_tool_input", parsed.message, { path: [] }));
  const checked = validateInput(tool, parsed.value);
  if (!checked.ok) return refuse(checked.error);
  const input = checked.input;

  // The journal row lands before execute, so a restart finds the call (DESIGN.md promise 3).
  if (existing) host.journal.start(request.callId, input);
  else host.journal.insert({ ...baseRow(request, argsText, effectKey), status: "started", input });
  const progressArg = tool.def.progressArgument;
  const started: EventPayloads["tool_call_started"] = {
    callId: request.callId,
    toolName: tool.name,
    source: request.source,
    input: input ?? {},
  };
  if (progressArg && input && typeof (input as Record<string, unknown>)[progressArg] === "string") {
    started.progress = (input as Record<string, string>)[progressArg];
  }
  host.emit("tool_call_started", started);

  const attempt = 1;
  const context: ToolCallContext = { callId: request.callId, effectKey, toolName: tool.name, attempt, signal: host.signal };
  let result: ToolResult;
  try {
    const state = host.stateFor({ callId: request.callId, tool, ...(request.turnId ? { turnId: request.turnId } : {}) });
    const execute = tool.def.execute as (state: ThreadState, args: unknown, call: ToolCallContext) => Promise<unknown>;
    result = normalizeResult(await execute(state, input, context));
  } catch (thrown) {
    result = resultFromThrown(thrown);
  }
  result = checkOutput(tool, result);

  const durationMs = Date.now() - startedAt;
  const status: CallStatus = result.status === "success" ? "succeeded" : "failed";
  host.journal.finish(request.callId, status, result, attempt, durationMs);
  const finished: EventPayloads["tool_call_finished"] = {
    callId: request.callId,
    toolName: tool.name,
    source: request.source,
    status,
    isError: result.status === "error",
    durationMs,
    attempts: attempt,
  };
  if (result.result !== undefined) finished.result = result.result;
  if (result.error !== undefined) finished.error = result.error;
  host.emit("tool_call_finished", finished);
  return {
    callId: request.callId,
    toolName: tool.name,
    argsText,
    status,
    result,
    isError: result.status === "error",
    durationMs,
    attempts: attempt,
    endsTurn: tool.def.endsTurn === true && result.status === "success",
  };
}

function baseRow(request: CallRequest, argsText: string, effectKey: string) {
  return {
    callId: request.callId,
    toolName: request.toolName,
    source: request.source,
    argsText,
    effectKey,
    ...(request.turnId ? { turnId: request.turnId } : {}),
    ...(request.parentCallId ? { parentCallId: request.parentCallId } : {}),
  };
}

/** seed-002: a success whose value fails `outputSchema` is an error result; the effect still happened. */
function checkOutput(tool: CompiledTool, result: ToolResult): ToolResult {
  if (!tool.output || result.status !== "success") return result;
  let value: unknown = result.result;
  if (typeof value === "string") {
    try {
      value = JSON.parse(value);
    } catch {
      // A plain string result is checked as a string.
    }
  }
  const checked = validate(tool.output, value);
  if (checked.ok) return result;
  return {
    status: "error",
    error: `invalid_tool_output: the tool ran and its effect happened, but its result does not match outputSchema: ${checked.issues
      .map((i) => i.message)
      .join("; ")}`,
  };
}
