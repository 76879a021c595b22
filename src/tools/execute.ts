/**
 * Running a validated call: journal, attempts with retries, abort handling, output check, size
 * cap, record, emit. The only place a tool's `execute` is called (DESIGN.md).
 * @module
 */
import { WeftError, errorMessage } from "../errors.js";
import type { CallRecord, CallStatus, EventPayloads, ToolResult } from "../protocol.js";
import type { CompiledTool } from "./catalog.js";
import { type CallOutcome, type CallRequest, type DispatchHost, effectKeyOf } from "./host.js";
import { normalizeResult, resultFromThrown } from "./result.js";
import { DEFAULT_MAX_ATTEMPTS, TransientError, backoffMs, isTransient } from "./retry.js";
import { capResult } from "./size.js";
import type { ThreadState } from "./thread-state.js";
import type { Effect, LookupResult, ToolCallContext } from "./types.js";

/** A call ready to run: its tool, parsed input and effect, and the row it may already have. */
export interface ReadyCall {
  request: CallRequest;
  tool: CompiledTool;
  input: unknown;
  effect: Effect;
  existing?: CallRecord;
  approvedBy?: string;
  startedAt: number;
}

type Execute = (state: ThreadState, args: unknown, call: ToolCallContext) => Promise<unknown>;

/** Retries apply to reads and idempotent calls only (the Agent SDK tools reference); writes run once. */
function retryable(effect: Effect): boolean {
  return effect === "read" || effect === "idempotent";
}

/** Journals, runs and records one call; returns its final outcome (or parked, after a stop). */
export async function runCall(host: DispatchHost, call: ReadyCall): Promise<CallOutcome> {
  const { request, tool, input, effect } = call;
  const effectKey = effectKeyOf(host.branchId, request.callId);
  const mark = { callId: request.callId, toolName: tool.name, effect };
  if (host.signal.aborted) {
    if (!call.existing) host.journal.insert({ ...rowOf(request, effectKey), status: "queued", input });
    return finishCall(host, call, { status: "error", error: "aborted: the thread was stopped before this call ran" }, "aborted", call.existing?.attempts ?? 0);
  }

  await host.checkpoint?.("before_journal", mark);
  // The journal row of anything but a read is durable before execute runs, so a restart finds the call (DESIGN.md 3).
  if (call.existing) host.journal.start(request.callId, input);
  else host.journal.insert({ ...rowOf(request, effectKey), status: "started", input });
  let attempts = (call.existing?.attempts ?? 0) + 1;
  // A read waits for no flush: run again after a restart, it does no harm (DESIGN.md 3). Its row
  // commits with the result, like every other write of the request.
  if (effect !== "read") await host.flush();
  await host.checkpoint?.("after_journal", mark);
  const started: EventPayloads["tool_call_started"] = { callId: request.callId, toolName: tool.name, source: request.source, input: input ?? {} };
  const progressArg = tool.def.progressArgument;
  if (progressArg && input && typeof (input as Record<string, unknown>)[progressArg] === "string") {
    started.progress = (input as Record<string, string>)[progressArg];
  }
  // A call announced while its arguments streamed had its event and hook then.
  if (!request.announced) {
    host.emit("tool_call_started", started);
    if (host.beforeExecute) {
      try {
        await host.beforeExecute(started);
      } catch (e) {
        finishCall(host, call, { status: "error", error: errorMessage(e) }, "failed", attempts);
        throw e;
      }
    }
  }

  const state = host.stateFor({ callId: request.callId, tool, ...(request.turnId ? { turnId: request.turnId } : {}) });
  const maxAttempts = retryable(effect) ? (tool.def.maxAttempts ?? DEFAULT_MAX_ATTEMPTS) : 1;
  let result: ToolResult;
  for (;;) {
    // Each attempt has a deadline; its signal fires on a stop or when the deadline passes.
    const timeoutMs = tool.def.timeoutMs ?? host.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    const attempt = new AbortController();
    const onStop = () => attempt.abort(host.signal.reason);
    if (host.signal.aborted) onStop();
    else host.signal.addEventListener("abort", onStop, { once: true });
    const timer = setTimeout(() => attempt.abort(new TransientError(`timed out: execute did not finish within ${timeoutMs} ms (timeoutMs)`)), timeoutMs);
    const context: ToolCallContext = {
      callId: request.callId,
      effectKey,
      toolName: tool.name,
      attempt: attempts,
      signal: attempt.signal,
      ...(call.approvedBy ? { approvedBy: call.approvedBy } : {}),
    };
    // An async wrapper, so an `execute` that throws before returning a promise is a result too.
    const work = (async () => (tool.def.execute as Execute)(state, input, context))();
    let ran = await untilAborted(work, attempt.signal);
    clearTimeout(timer);
    host.signal.removeEventListener("abort", onStop);
    if (ran.aborted && host.signal.aborted) return afterAbort(host, call, state, attempts);
    if (ran.aborted) ran = { ok: false, error: attempt.signal.reason };
    if (ran.ok) {
      result = normalizeResult(ran.value);
      break;
    }
    if (attempts < maxAttempts && isTransient(ran.error) && !host.signal.aborted) {
      // The sleep holds no lock: other requests to the thread run meanwhile.
      await host.sleep(backoffMs(attempts));
      host.journal.attempt(request.callId);
      attempts += 1;
      continue;
    }
    result = resultFromThrown(ran.error);
    if (!retryable(effect) && !isRefusal(ran.error)) {
      // The throw may have come after the request went out: say so, or a repeat repeats the effect.
      result.error = `${result.error}. ${UNKNOWN_OUTCOME}`;
      await host.checkpoint?.("after_effect", mark);
      return finishCall(host, call, result, "failed", attempts, { outcome: "unknown" });
    }
    break;
  }
  await host.checkpoint?.("after_effect", mark);
  const checked = checkOutput(tool, result);
  return finishCall(host, call, checked.result, checked.result.status === "success" ? "succeeded" : "failed", attempts, checked.extra);
}

/** Deadline of one attempt of `execute` when neither the tool nor `WEFT_CALL_TIMEOUT_MS` sets one. */
export const DEFAULT_CALL_TIMEOUT_MS = 60_000;

/** What the model is told when a write threw: its outcome is not known. */
export const UNKNOWN_OUTCOME =
  "The outcome is unknown: the call failed after it began, so its effect may have happened; repeating the call may repeat the effect";

/** A thrown input refusal: the tool said no before doing anything. */
function isRefusal(thrown: unknown): boolean {
  return thrown instanceof WeftError ? thrown.code === "invalid_tool_input" : (thrown as { code?: unknown } | null)?.code === "invalid_tool_input";
}

/** Waits for `work`, or for the signal, whichever comes first. */
async function untilAborted<T>(
  work: Promise<T>,
  signal: AbortSignal,
): Promise<{ ok: true; value: T; aborted?: false } | { ok: false; error: unknown; aborted?: false } | { aborted: true }> {
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<{ aborted: true }>((resolve) => {
    onAbort = () => resolve({ aborted: true });
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([
      work.then(
        (value) => ({ ok: true as const, value }),
        (error: unknown) => ({ ok: false as const, error }),
      ),
      aborted,
    ]);
  } finally {
    if (onAbort) signal.removeEventListener("abort", onAbort);
  }
}

/**
 * A stop while `execute` runs never records success (issue: aborts). A read is recorded aborted; a
 * reconcilable call asks `lookup`; anything else may have taken effect, so it is parked.
 */
async function afterAbort(host: DispatchHost, call: ReadyCall, state: ThreadState, attempts: number): Promise<CallOutcome> {
  const reason = "the thread was stopped while the call ran; its outcome is unknown";
  if (call.effect === "read") return finishCall(host, call, { status: "error", error: `aborted: ${reason}` }, "aborted", attempts);
  if (call.effect === "reconcilable") {
    const answer = await lookup(call.tool, effectKeyOf(host.branchId, call.request.callId), state);
    if (answer.status === "found") return finishCall(host, call, foundResult(answer.value), "succeeded", attempts);
    if (answer.status === "not_found" && call.tool.def.reconcile?.finality === "final") {
      return finishCall(host, call, { status: "error", error: "aborted: the thread was stopped; lookup confirms nothing happened" }, "aborted", attempts);
    }
  }
  return parkCall(host, call.request, reason, attempts);
}

/** Asks a reconcilable tool whether its effect happened; a throwing lookup answers `unknown`. */
export async function lookup(tool: CompiledTool, effectKey: string, state: ThreadState): Promise<LookupResult> {
  try {
    const answer = await tool.def.reconcile!.lookup(effectKey, state);
    if (answer && (answer.status === "found" || answer.status === "not_found" || answer.status === "unknown")) return answer;
    return { status: "unknown" };
  } catch {
    return { status: "unknown" };
  }
}

/** The recorded result of a `found` lookup. */
export function foundResult(value: string | ToolResult): ToolResult {
  return typeof value === "string" ? { status: "success", result: value } : normalizeResult(value);
}

/** Parks a call for a person to settle, and says so. */
export function parkCall(host: DispatchHost, request: CallRequest, reason: string, attempts: number): CallOutcome {
  host.journal.park(request.callId, reason);
  host.emit("tool_call_parked", { callId: request.callId, toolName: request.toolName, reason });
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
}

/**
 * Caps, records and emits a final result. `tool` is absent for a call refused before its tool
 * resolved (an unknown name), which can neither end a turn nor have been stubbed.
 */
export function finishCall(
  host: DispatchHost,
  call: { request: CallRequest; tool?: CompiledTool; startedAt: number },
  result: ToolResult,
  status: CallStatus,
  attempts: number,
  extra: FinishExtra = {},
): CallOutcome {
  const { request, tool } = call;
  const durationMs = Date.now() - call.startedAt;
  let capped: ReturnType<typeof capResult>;
  try {
    capped = capResult(result, request.callId, host.resultCapBytes, host.files);
    host.journal.finish(request.callId, status, capped.result, {
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
    host.journal.finish(request.callId, status, failure, { attempts, durationMs });
  }
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
  };
}

/** weft's effect table: a success whose value fails `outputSchema` is an error result; the effect still happened. */
function checkOutput(tool: CompiledTool, result: ToolResult): { result: ToolResult; extra?: FinishExtra } {
  try {
    return checkOutputOrThrow(tool, result);
  } catch (e) {
    return { result: { status: "error", error: `invalid_tool_output: the tool ran and its effect happened, but checking its result against outputSchema failed: ${errorMessage(e)}` } };
  }
}

function checkOutputOrThrow(tool: CompiledTool, result: ToolResult): { result: ToolResult; extra?: FinishExtra } {
  if (!tool.output || result.status !== "success") return { result };
  let value: unknown = result.result;
  if (typeof value === "string") {
    try {
      value = JSON.parse(value);
    } catch {
      // A plain string result is checked as a string.
    }
  }
  const checked = tool.output.validate(value);
  if (checked.ok) return { result };
  return {
    result: {
      status: "error",
      error: `invalid_tool_output: the tool ran and its effect happened, but its result does not match outputSchema: ${checked.issues
        .map((i) => i.message)
        .join("; ")}`,
    },
    extra: { errorCode: "invalid_tool_output", errorDetails: { path: checked.issues[0]!.path, issues: checked.issues } },
  };
}

/** The call's arguments as text: the model's raw text, or the JSON of a structured value. */
export function argsTextOf(request: CallRequest): string {
  return "text" in request.args ? request.args.text : JSON.stringify(request.args.value ?? {});
}

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
