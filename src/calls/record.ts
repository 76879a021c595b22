/**
 * The one module that writes a call's outcome: a final result (capped, recorded once, emitted as
 * `tool_call_finished`) or a park for a person. Every path (run, refusal, dry-run stub, recovery,
 * reconcile, approval, settlement) records through here.
 * @module
 */
import { type WeftError, errorMessage } from "../errors.js";
import { type CallRecord, type CallStatus, type EventPayloads, type ToolResult, isFinalStatus } from "../protocol.js";
import type { CompiledTool } from "../tools/catalog.js";
import type { CallOutcome, CallRequest } from "./call.js";
import type { CallContext } from "./context.js";
import type { Effect } from "../tools/types.js";
import { keptValue } from "../kept-text.js";
import { capResult } from "./size.js";

/** Parks a call for a person to settle (or, `client`, for the client to answer: client.ts), and says so. */
export function parkCall(host: CallContext, request: CallRequest, reason: string, attempts: number, client?: { client: true; input: unknown }): CallOutcome {
  host.journal.park(request.callId, reason);
  host.emit("tool_call_parked", { callId: request.callId, toolName: request.toolName, reason, ...client });
  return {
    callId: request.callId,
    toolName: request.toolName,
    argsText: argsTextOf(request),
    status: "parked",
    final: false,
    result: { status: "error", error: `parked: ${reason}` },
    isError: true,
    durationMs: 0,
    attempts,
    endsTurn: false,
  };
}

/** What a final result records besides itself: a stub mark, or the refusal that ended it. */
export interface FinishExtra {
  stubbed?: boolean;
  /** `unknown`: a write failed after it began, so its effect may or may not have happened. */
  outcome?: "unknown";
  errorCode?: WeftError["code"];
  errorDetails?: Record<string, unknown>;
  /** The provider ran the call itself; this records the result it gave. */
  providerExecuted?: boolean;
}

/** The outcome a stored call stands at. */
export function outcomeOf(host: CallContext, record: CallRecord): CallOutcome {
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
    ...(record.fullResultPath ? { fullResultPath: record.fullResultPath } : {}),
  };
}

/**
 * Caps, records and emits a final result, once: when the call already has one (another path
 * finished it first), nothing is written or emitted and the recorded outcome is returned. `tool` is absent for a call refused before its tool
 * resolved (an unknown name), which can neither end a turn nor have been stubbed.
 */
export function finishCall(
  host: CallContext,
  call: { request: CallRequest; tool?: CompiledTool; startedAt: number },
  result: ToolResult,
  status: CallStatus,
  attempts: number,
  extra: FinishExtra = {},
): CallOutcome {
  const { request, tool } = call;
  const durationMs = Date.now() - call.startedAt;
  let capped: ReturnType<typeof capResult>;
  let first: boolean;
  try {
    capped = capResult(result, request.callId, host.resultCapBytes, host.files);
    // Kept as the result's text is, redacted now: a Worker secret rotated later is not in the record to show.
    if (extra.errorDetails) extra = { ...extra, errorDetails: keptValue(host.files.redact, extra.errorDetails) };
    first = host.journal.finish(request.callId, status, capped.result, {
      attempts,
      durationMs,
      ...(extra.stubbed ? { stubbed: true } : {}),
      ...(extra.errorCode ? { errorCode: extra.errorCode } : {}),
      ...(extra.errorDetails ? { errorDetails: extra.errorDetails } : {}),
      ...(extra.outcome ? { outcome: extra.outcome } : {}),
      ...(capped.fullResultPath ? { fullResultPath: capped.fullResultPath } : {}),
    });
  } catch (e) {
    // The result could not be stored: the call still ends, with an error naming what failed.
    const ran = attempts > 0 && status !== "aborted" ? "; the tool ran, so its effect happened" : "";
    const failure: ToolResult = { status: "error", error: `weft could not store this call's result (${errorMessage(e).slice(0, 300)})${ran}` };
    capped = { result: failure };
    status = "failed";
    extra = {};
    first = host.journal.finish(request.callId, status, failure, { attempts, durationMs });
  }
  if (!first) {
    // Already final: the first result stands, and its event was the one emitted.
    const recorded = host.journal.get(request.callId);
    if (recorded) return outcomeOf(host, recorded);
  }
  // Synchronous on purpose: a crash here loses the row above, which is not yet durable.
  void host.checkpoint?.("while_recording", { callId: request.callId, toolName: request.toolName, ...("effect" in call ? { effect: call.effect as Effect } : {}) });
  const finished: EventPayloads["tool_call_finished"] = {
    callId: request.callId,
    toolName: request.toolName,
    source: request.source,
    status,
    isError: capped.result.status === "error",
    durationMs,
    attempts,
  };
  if (capped.result.result !== undefined) finished.result = capped.result.result;
  if (capped.result.error !== undefined) finished.error = capped.result.error;
  if (extra.stubbed) finished.stubbed = true;
  if (extra.errorCode) finished.errorCode = extra.errorCode;
  if (extra.errorDetails) finished.errorDetails = extra.errorDetails;
  if (extra.outcome) finished.outcome = extra.outcome;
  if (extra.providerExecuted) finished.providerExecuted = true;
  if (capped.fullResultPath) finished.fullResultPath = capped.fullResultPath;
  host.emit("tool_call_finished", finished);
  return {
    callId: request.callId,
    toolName: request.toolName,
    argsText: argsTextOf(request),
    status,
    final: true,
    result: capped.result,
    isError: capped.result.status === "error",
    durationMs,
    attempts,
    endsTurn: tool?.def.endsTurn === true && capped.result.status === "success",
    ...(extra.stubbed ? { stubbed: true } : {}),
    ...(extra.errorCode ? { errorCode: extra.errorCode } : {}),
    ...(extra.errorDetails ? { errorDetails: extra.errorDetails } : {}),
    ...(capped.fullResultPath ? { fullResultPath: capped.fullResultPath } : {}),
  };
}

/** The call's arguments as text: the model's raw text, or the JSON of a structured value. */
export function argsTextOf(request: CallRequest): string {
  const args = request.args;
  if ("text" in args) return args.text;
  // A call asks twice (its journal row, then its outcome): the value is serialized once.
  if (args !== lastArgs) {
    lastText = JSON.stringify(args.value ?? {});
    lastArgs = args;
  }
  return lastText;
}
let lastArgs: CallRequest["args"] | undefined;
let lastText = "";

/** The journal columns a request fills, without its status. */
export function rowOf(request: CallRequest, effectKey: string) {
  return {
    callId: request.callId,
    toolName: request.toolName,
    source: request.source,
    argsText: argsTextOf(request),
    effectKey,
    ...(request.turnId ? { turnId: request.turnId } : {}),
    ...(request.parentCallId ? { parentCallId: request.parentCallId } : {}),
  };
}
