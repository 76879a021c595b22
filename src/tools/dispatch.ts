/**
 * The one dispatch pipeline. Model calls, direct HTTP calls, `queueTool` and `invokeTool` all come
 * through `dispatch` (DESIGN.md):
 *
 * parse JSON -> validate -> timeArgs -> approval -> effect policy (dry-run, journal, retry, park)
 * -> execute -> output check -> record -> emit
 * @module
 */
import { WeftError, errorMessage } from "../errors.js";
import { type CallRecord, type ToolResult, isFinalStatus } from "../protocol.js";
import { canonicalJson } from "./catalog.js";
import type { CompiledTool } from "./catalog.js";
import { runCall } from "./execute.js";
import { finishCall, rowOf } from "./record.js";
import { type CallOutcome, type CallRequest, type DispatchHost, effectKeyOf } from "./host.js";
import { policyFor } from "./policy.js";
import { recoverCall } from "./recover.js";
import { normalizeResult } from "./result.js";
import { checkTimeArgs } from "./time-args.js";
import type { Effect } from "./types.js";

/** The pipeline's host, request and outcome shapes (src/tools/host.ts). */
export type { CallOutcome, CallRequest, DispatchHost } from "./host.js";
export { effectKeyOf } from "./host.js";


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

/**
 * Validates a parsed value against a tool's schema; a tool without `args` takes `{}`.
 * @returns the parsed input (defaults applied) or an `invalid_tool_input` error naming the path.
 */
export function validateInput(tool: CompiledTool, value: unknown): { ok: true; input: unknown } | { ok: false; error: WeftError } {
  if (tool.args === null) {
    const isObject = value !== null && typeof value === "object" && !Array.isArray(value);
    if (isObject && Object.keys(value).length === 0) return { ok: true, input: undefined };
    const extra = isObject ? Object.keys(value)[0] : undefined;
    const message = extra ? `${extra}: this tool takes no arguments` : "input: this tool takes no arguments";
    return { ok: false, error: new WeftError("invalid_tool_input", message, { path: extra ? [extra] : [] }) };
  }
  const checked = tool.args.validate(value);
  if (checked.ok) return { ok: true, input: checked.data };
  return {
    ok: false,
    error: new WeftError("invalid_tool_input", checked.issues.map((i) => i.message).join("; "), {
      path: checked.issues[0]!.path,
      issues: checked.issues,
    }),
  };
}

/** SHA-256 (hex) of the canonical JSON of an input: what an approval is bound to. */
export async function argsHashOf(input: unknown): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(canonicalJson(input ?? {})));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The outcome a stored call stands at. */
export function outcomeOf(host: DispatchHost, record: CallRecord): CallOutcome {
  const final = isFinalStatus(record.status);
  const result: ToolResult =
    record.result ??
    (record.status === "awaiting_approval"
      ? { status: "error", error: "awaiting approval" }
      : { status: "error", error: `parked: ${record.parkReason ?? "waiting for a person"}` });
  // Only a successful call can end a turn; its tool compiled when it ran (unless a deploy removed it).
  const endsTurn = final && result.status === "success" && host.catalog.has(record.toolName) && host.catalog.get(record.toolName).def.endsTurn === true;
  return {
    callId: record.callId,
    toolName: record.toolName,
    argsText: record.argsText,
    status: record.status,
    final,
    result,
    isError: result.status === "error",
    durationMs: record.durationMs ?? 0,
    attempts: record.attempts,
    endsTurn,
    ...(record.errorCode ? { errorCode: record.errorCode as WeftError["code"] } : {}),
    ...(record.stubbed ? { stubbed: true } : {}),
  };
}

/**
 * Runs one call through the pipeline and records exactly one final result for its id. A call id
 * that already has a result returns it and runs nothing; one interrupted by a restart goes through
 * recovery. Never throws for a tool's failure or a bad input: those are error results.
 */
export async function dispatch(host: DispatchHost, request: CallRequest): Promise<CallOutcome> {
  const startedAt = Date.now();
  const existing = host.journal.get(request.callId);
  if (existing && existing.status !== "queued") {
    return existing.status === "started" ? recoverCall(host, existing) : outcomeOf(host, existing);
  }
  const effectKey = effectKeyOf(host.branchId, request.callId);
  // A refusal before execute: recorded and emitted like any result, with no started event.
  const refuse = (error: WeftError): CallOutcome => {
    if (!existing) host.journal.insert({ ...rowOf(request, effectKey), status: "queued" });
    const result: ToolResult = { status: "error", error: `${error.code}: ${error.message}` };
    return finishCall(host, { request, startedAt }, result, "failed", 0, {
      errorCode: error.code,
      ...(error.details ? { errorDetails: error.details } : {}),
    });
  };

  let tool: CompiledTool;
  try {
    tool = host.catalog.get(request.toolName);
  } catch (e) {
    return refuse(e instanceof WeftError ? e : new WeftError("invalid_config", errorMessage(e)));
  }
  // Partial text may happen to parse; a call whose arguments were cut off still never runs.
  if (request.cutOff) {
    return refuse(new WeftError("invalid_tool_input", "the arguments were cut off: the model's stream ended before this call was complete", { path: [] }));
  }
  const parsed = parseArgs(request.args);
  if (!parsed.ok) return refuse(new WeftError("invalid_tool_input", parsed.message, { path: [] }));
  const checked = validateInput(tool, parsed.value);
  if (!checked.ok) return refuse(checked.error);
  const input = checked.input;
  let effect: Effect;
  try {
    if (host.asOf) checkTimeArgs(tool, input, host.asOf);
    effect = tool.effectOf(input);
  } catch (e) {
    return refuse(e instanceof WeftError ? e : new WeftError("invalid_config", errorMessage(e)));
  }
  const ready = { request, tool, input, effect, startedAt, ...(existing ? { existing } : {}) };

  if (await needsApproval(host, tool, input, request)) {
    const argsHash = await argsHashOf(input);
    if (!existing) host.journal.insert({ ...rowOf(request, effectKey), status: "queued" });
    host.journal.awaitApproval(request.callId, input, argsHash);
    host.emit("tool_call_approval_requested", { callId: request.callId, toolName: tool.name, input: input ?? {}, argsHash });
    return outcomeOf(host, host.journal.get(request.callId)!);
  }
  if (host.dryRun && policyFor(effect, "dry_run") === "stub") {
    // The effect policy: a dry-run thread answers writes and idempotent calls without running them.
    let stub: ToolResult = { status: "success", result: "Operation acknowledged." };
    if (tool.def.dryRunResult) {
      try {
        stub = normalizeResult(await tool.def.dryRunResult(input));
      } catch (e) {
        stub = { status: "error", error: `dryRunResult failed: ${errorMessage(e)}` };
      }
    }
    if (!existing) host.journal.insert({ ...rowOf(request, effectKey), status: "queued", input });
    return finishCall(host, ready, stub, stub.status === "success" ? "succeeded" : "failed", 0, { stubbed: true });
  }
  return runCall(host, ready);
}

async function needsApproval(host: DispatchHost, tool: CompiledTool, input: unknown, request: CallRequest): Promise<boolean> {
  const rule = tool.def.needsApproval;
  if (rule === undefined || rule === false) return false;
  if (rule === true) return true;
  const state = host.stateFor({ callId: request.callId, tool, ...(request.turnId ? { turnId: request.turnId } : {}) });
  return (await rule(input, state)) === true;
}
