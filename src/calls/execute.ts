/**
 * Running a validated call: journal, attempts with retries, abort handling, output check, size
 * cap, record, emit. The only place a tool's `execute` is called (DESIGN.md).
 * @module
 */
import { WeftError, errorMessage } from "../errors.js";
import type { CallRecord, EventPayloads, ToolResult } from "../protocol.js";
import type { CompiledTool } from "../tools/catalog.js";
import { type CallOutcome, type CallRequest, type DispatchHost, effectKeyOf } from "./host.js";
import { policyFor } from "../tools/policy.js";
import { type FinishExtra, finishCall, parkCall, rowOf } from "./record.js";
import { executeResult, normalizeResult, resultFromThrown } from "./result.js";
import { DEFAULT_MAX_ATTEMPTS, TransientError, backoffMs, isTransient } from "./retry.js";
import { CallSuspended } from "./suspend.js";
import { Attempt } from "./attempt.js";
import type { ThreadState } from "../tools/thread-state.js";
import type { Effect, LookupResult, ToolCallContext } from "../tools/types.js";

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

/** Retries follow the effect policy: reads and idempotent calls only; writes run once. */
function retryable(effect: Effect): boolean {
  return policyFor(effect, "transient_failure") === "retry";
}

/** Journals, runs and records one call; returns its final outcome (or parked, after a stop). */
export async function runCall(host: DispatchHost, call: ReadyCall): Promise<CallOutcome> {
  const { request, tool, input, effect } = call;
  const effectKey = effectKeyOf(host.branchId, request.callId);
  const mark = { callId: request.callId, toolName: tool.name, effect };
  if (host.signal?.aborted) {
    if (!call.existing) host.journal.insert({ ...rowOf(request, effectKey), status: "queued", input });
    return finishCall(host, call, { status: "error", error: "aborted: the thread was stopped before this call ran" }, "aborted", call.existing?.attempts ?? 0);
  }

  if (host.checkpoint) await host.checkpoint("before_journal", mark);
  const started: EventPayloads["tool_call_started"] = { callId: request.callId, toolName: tool.name, source: request.source, input: input ?? {} };
  const progressArg = tool.def.progressArgument;
  if (progressArg && input && typeof (input as Record<string, unknown>)[progressArg] === "string") {
    started.progress = (input as Record<string, string>)[progressArg];
  }
  // A call the policy simply re-runs after a restart (a read) waits for no flush; its row commits
  // with the result, like every other write of the request (DESIGN.md 3). A fresh one may even
  // keep its row and event in memory until its result comes, so each is written once.
  const rerun = policyFor(effect, "restart_after_journal") === "rerun";
  const held = rerun && !call.existing && host.holdStart !== undefined;
  // The journal row of anything but a read is durable before execute runs, so a restart finds the call (DESIGN.md 3).
  let journaled: Promise<void> | undefined;
  if (held) host.holdStart!({ ...rowOf(request, effectKey), status: "started", input }, request.announced ? null : started);
  else if (call.existing) host.journal.start(request.callId, input);
  else if (!rerun && host.journalDurably) journaled = host.journalDurably({ ...rowOf(request, effectKey), status: "started", input });
  else host.journal.insert({ ...rowOf(request, effectKey), status: "started", input });
  let attempts = (call.existing?.attempts ?? 0) + 1;
  if (!rerun) await (journaled ?? host.flush());
  if (host.checkpoint) await host.checkpoint("after_journal", mark);
  // A call announced while its arguments streamed had its event and hook then.
  if (!request.announced) {
    // A held read's event is held with its row; any other call's may wait for its finished one too.
    if (!held && host.holdStart) host.holdStart(null, started);
    else if (!held) host.emit("tool_call_started", started);
    if (host.beforeExecute) {
      try {
        await host.beforeExecute(started);
      } catch (e) {
        finishCall(host, call, { status: "error", error: errorMessage(e) }, "failed", attempts);
        throw e;
      }
    }
  }

  const bound = { callId: request.callId, tool, ...(request.turnId ? { turnId: request.turnId } : {}) };
  const maxAttempts = retryable(effect) ? (tool.def.maxAttempts ?? DEFAULT_MAX_ATTEMPTS) : 1;
  let result: ToolResult;
  for (;;) {
    // A fresh state per attempt: queued and invoked children are numbered per run of execute.
    const state = host.stateFor(bound);
    // Each attempt has a deadline; its signal fires on a stop or when the deadline passes.
    const timeoutMs = tool.def.timeoutMs ?? host.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    const attempt = new Attempt(host.signal, host.deadlines);
    const context = new CallContext(request.callId, effectKey, tool.name, attempts, attempt, call.approvedBy);
    const ended = await attempt.run(() => (tool.def.execute as Execute)(state, input, context), timeoutMs, () => new TransientError(`timed out: execute did not finish within ${timeoutMs} ms (timeoutMs)`));
    if (ended.aborted && host.signal?.aborted) return afterAbort(host, call, state, attempts);
    const ran = ended.aborted ? { ok: false as const, error: ended.reason } : ended;
    if (ran.ok) {
      result = executeResult(ran.value);
      break;
    }
    // The nested work waits for a person: the call waits too, and resumes once nothing inside does.
    if (ran.error instanceof CallSuspended) return parkCall(host, request, ran.error.message, attempts);
    if (attempts < maxAttempts && isTransient(ran.error) && !host.signal?.aborted) {
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
      if (host.checkpoint) await host.checkpoint("after_effect", mark);
      const unknown = finishCall(host, call, result, "failed", attempts, { outcome: "unknown" });
      if (host.checkpoint) await host.checkpoint("after_result", mark);
      return unknown;
    }
    break;
  }
  if (host.checkpoint) await host.checkpoint("after_effect", mark);
  const checked = checkOutput(tool, result);
  const outcome = finishCall(host, call, checked.result, checked.result.status === "success" ? "succeeded" : "failed", attempts, checked.extra);
  if (host.checkpoint) await host.checkpoint("after_result", mark);
  return outcome;
}

/**
 * The `ToolCallContext` of one attempt. `signal` is an accessor on the prototype, made only when
 * read: in an object literal an accessor gives every context a hidden class of its own, slow to
 * build and to read.
 */
class CallContext implements ToolCallContext {
  declare readonly approvedBy?: string;
  readonly #attempt: Attempt;

  constructor(
    readonly callId: string,
    readonly effectKey: string,
    readonly toolName: string,
    readonly attempt: number,
    run: Attempt,
    approvedBy: string | undefined,
  ) {
    this.#attempt = run;
    if (approvedBy) (this as { approvedBy?: string }).approvedBy = approvedBy;
  }

  get signal(): AbortSignal {
    return this.#attempt.signal;
  }
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

/**
 * A stop after `execute` began never records success: the effect policy's "stopped while
 * running" column decides between aborted, a lookup, and parked. Also the stop of a call that
 * ran and is suspended on work inside it (src/tools/stop.ts).
 */
export async function afterAbort(host: DispatchHost, call: ReadyCall, state: ThreadState, attempts: number): Promise<CallOutcome> {
  const reason = "the thread was stopped while the call ran; its outcome is unknown";
  const action = policyFor(call.effect, "stop_while_running");
  if (action === "abort") return finishCall(host, call, { status: "error", error: `aborted: ${reason}` }, "aborted", attempts);
  if (action === "lookup_or_abort") {
    const answer = await reconcileCall(call.tool, effectKeyOf(host.branchId, call.request.callId), state);
    if (answer.decision === "found") return finishCall(host, call, answer.result, "succeeded", attempts);
    if (answer.decision === "nothing_happened") {
      return finishCall(host, call, { status: "error", error: "aborted: the thread was stopped; lookup confirms nothing happened" }, "aborted", attempts);
    }
  }
  return parkCall(host, call.request, reason, attempts);
}

/**
 * Asks a reconcilable tool whether its effect happened and reads the answer by the tool's
 * finality: found, certainly nothing (`not_found` + `final`), or unknown (with why).
 */
export async function reconcileCall(
  tool: CompiledTool,
  effectKey: string,
  state: ThreadState,
): Promise<{ decision: "found"; result: ToolResult } | { decision: "nothing_happened" } | { decision: "unknown"; why: string }> {
  const answer = await lookup(tool, effectKey, state);
  if (answer.status === "found") return { decision: "found", result: foundResult(answer.value) };
  if (answer.status === "not_found" && tool.def.reconcile?.finality === "final") return { decision: "nothing_happened" };
  return { decision: "unknown", why: answer.status === "not_found" ? "lookup found nothing, but its not_found is not final" : "lookup could not tell" };
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

/** A success whose value fails `outputSchema` is an error result; the effect still happened. */
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
