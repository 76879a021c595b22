/**
 * The one pipeline every call goes through, its stages once and in order:
 *
 * 1. tool -> 2. parse -> 3. validate -> 4. timeArgs -> 5. judge effect -> 6. approval
 * -> 7. effect policy (stub, or on) -> 8. execute (journal, attempts with retries, park; a
 * client tool's call is parked for the client instead: client.ts)
 * -> 9. output check -> 10. record and emit (record.ts)
 *
 * A new call enters at 1 ({@link enterRequest}). A person's approval enters at 5 with `approvedBy`,
 * which passes 6 ({@link enterJudge}); a settlement's retry, a resumed suspended call and a
 * recovered call enter at 8 ({@link enterExecute}). The call runner (runner.ts) decides where.
 * @module
 */
import { WeftError, errorMessage } from "../errors.js";
import type { CallRecord, EventPayloads, ToolResult } from "../protocol.js";
import { wireValue } from "../json-shape.js";
import { MAX_STEP_BYTES } from "../limits.js";
import type { CompiledTool } from "../tools/catalog.js";
import { modelOnlyReason } from "../tools/define.js";
import { judgeApproval, judgeEffect } from "../tools/judge.js";
import { startedAs, termsOf } from "../tools/started-as.js";
import { journalWait } from "../tools/journal-order.js";
import { policyFor } from "../tools/policy.js";
import type { ThreadState } from "../tools/thread-state.js";
import type { Effect, ToolCallContext } from "../tools/types.js";
import { Attempt } from "./attempt.js";
import { type CallOutcome, type CallRequest, type ReadyCall, effectKeyOf } from "./call.js";
import type { CallContext } from "./context.js";
import { AttemptContext, DEFAULT_CALL_TIMEOUT_MS, UNKNOWN_OUTCOME, afterAbort, checkOutput, isRefusal } from "./execute.js";
import { argsHashOf, parseArgs, validateInput } from "./input.js";
import { type FinishExtra, finishCall, outcomeOf, parkCall, rowOf } from "./record.js";
import { normalizeResult, executeResult, resultFromThrown } from "./result.js";
import { DEFAULT_MAX_ATTEMPTS, TransientError, backoffMs, isTransient } from "./retry.js";
import { awaitClient, isClientTool } from "./client.js";
import { CallSuspended } from "./suspend.js";
import { checkTimeArgs } from "./time-args.js";

/** A refusal before execute (stages 1-4): recorded and emitted like any result, with no started event. */
function refuse(ctx: CallContext, request: CallRequest, existing: CallRecord | undefined, startedAt: number, error: WeftError): CallOutcome {
  if (!existing) ctx.journal.insert({ ...rowOf(request, effectKeyOf(ctx.branchId, request.callId)), status: "queued" });
  const result: ToolResult = { status: "error", error: `${error.code}: ${error.message}` };
  return finishCall(ctx, { request, startedAt }, result, "failed", 0, {
    errorCode: error.code,
    ...(error.details ? { errorDetails: error.details } : {}),
  });
}

/** A predicate judging the call failed (judge.ts): the call ends with that error result, and never runs. */
function failed(ctx: CallContext, call: Omit<ReadyCall, "effect">, error: string): CallOutcome {
  if (!call.existing) ctx.journal.insert({ ...rowOf(call.request, effectKeyOf(ctx.branchId, call.request.callId)), status: "queued", input: call.input });
  return finishCall(ctx, call, { status: "error", error }, "failed", 0);
}

/**
 * Stages 1-4 for a call with no row yet, or a queued one (`existing`): the tool, its arguments
 * parsed, validated and checked against `asOf`; then on to stage 5. Never throws for a bad input.
 */
export function enterRequest(ctx: CallContext, request: CallRequest, existing: CallRecord | undefined): Promise<CallOutcome> | CallOutcome {
  const startedAt = Date.now();
  let tool: CompiledTool;
  try {
    tool = ctx.catalog.get(request.toolName);
  } catch (e) {
    if (request.refuseUnstored) throw e;
    return refuse(ctx, request, existing, startedAt, e instanceof WeftError ? e : new WeftError("invalid_config", errorMessage(e)));
  }
  // The provider runs these itself; a plain call to one is never run here. Only a model's call
  // reaches a client: a direct, queued or invoked one has none to answer it. Not the input's fault
  // either way: tool_not_callable (the direct-call error table), in the words of the one rule for
  // other callers, and for a model's call to a provider tool, that this model could not run it.
  const provider = tool.def.executionMode === "provider";
  if (provider || (isClientTool(tool.def) && request.source !== "model")) {
    const reason = tool.def.executionMode === "provider" && request.source === "model" ? `tool "${tool.name}" is executed by the provider (${String(tool.def.executionProvider)}), never by weft; this model cannot run it` : modelOnlyReason(tool.name, tool.def)!;
    const error = new WeftError("tool_not_callable", reason);
    // A direct caller's mistake leaves no row, as an unknown tool or a refused input does.
    if (request.refuseUnstored) throw error;
    return refuse(ctx, request, existing, startedAt, error);
  }
  // Partial text may happen to parse; a call whose arguments were cut off still never runs.
  if (request.cutOff === "length") {
    const raw = "text" in request.args ? request.args.text : "";
    const message = `the arguments were cut off by your output-token limit (finish reason "length") before this call was complete; it did not run. Call it again with smaller arguments, or split the work into several smaller calls; raw text: ${raw.slice(0, 200)}`;
    return refuse(ctx, request, existing, startedAt, new WeftError("invalid_tool_input", message, { path: [] }));
  }
  if (request.cutOff) return refuse(ctx, request, existing, startedAt, new WeftError("invalid_tool_input", "the arguments were cut off: the model's stream ended before this call was complete", { path: [] }));
  if (request.oversized !== undefined) {
    const message = `arguments: ${request.oversized} bytes, too large to store with the model's step (at most ${MAX_STEP_BYTES} bytes of text and arguments); the call did not run`;
    return refuse(ctx, request, existing, startedAt, new WeftError("payload_too_large", message, { path: [], limit: MAX_STEP_BYTES }));
  }
  const parsed = parseArgs(request.args);
  if (!parsed.ok) return refuse(ctx, request, existing, startedAt, new WeftError("invalid_tool_input", parsed.message, { path: [] }));
  const checked = validateInput(tool, parsed.value);
  if (!checked.ok) {
    if (request.refuseUnstored) throw checked.error;
    return refuse(ctx, request, existing, startedAt, checked.error);
  }
  if (ctx.asOf) {
    try {
      checkTimeArgs(tool, parsed.value, checked.input, ctx.asOf);
    } catch (e) {
      return refuse(ctx, request, existing, startedAt, e instanceof WeftError ? e : new WeftError("invalid_tool_input", errorMessage(e)));
    }
  }
  return enterJudge(ctx, { request, tool, input: checked.input, startedAt, ...(existing ? { existing } : {}) });
}

/**
 * Stage 5, the effect predicate, then 6, approval: a call that needs it waits for a person. A call
 * with `approvedBy` (a person approved it) passes stage 6. The predicates are author code: one
 * rule for their failures, on every path (judge.ts).
 */
export async function enterJudge(ctx: CallContext, call: Omit<ReadyCall, "effect">): Promise<CallOutcome> {
  const { request, tool, input, existing } = call;
  const effect = judgeEffect(tool, input);
  if (!effect.ok) return failed(ctx, call, effect.error);
  request.admit?.(effect.value);
  const ready: ReadyCall = { ...call, ...termsOf(effect.value, tool.def) };
  if (call.approvedBy !== undefined) return effectPolicy(ctx, ready);
  // A stopped run starts nothing, not even a wait for a person: stage 8 records it aborted.
  if (ctx.signal?.aborted) return enterExecute(ctx, ready);
  const asked = judgeApproval(tool, input, () => ctx.stateFor({ callId: request.callId, tool, ...(request.turnId ? { turnId: request.turnId } : {}) }));
  const answer = asked instanceof Promise ? await asked : asked;
  if (!answer.ok) return failed(ctx, call, answer.error);
  if (!answer.value) return effectPolicy(ctx, ready);
  const argsHash = await argsHashOf(input, ctx.argsKey());
  if (!existing) ctx.journal.insert({ ...rowOf(request, effectKeyOf(ctx.branchId, request.callId)), status: "queued" });
  ctx.journal.awaitApproval(request.callId, input, argsHash);
  ctx.emit("tool_call_approval_requested", { callId: request.callId, toolName: tool.name, input: wireValue(input) ?? {}, argsHash });
  return outcomeOf(ctx, ctx.journal.get(request.callId)!);
}

/**
 * Stage 7, the effect policy's dry-run column (the tools reference): a dry-run thread answers
 * writes and idempotent calls with `dryRunResult(input)` or "Operation acknowledged." instead of
 * running them, approved calls included. Anything else goes on to execute.
 */
function effectPolicy(ctx: CallContext, ready: ReadyCall): Promise<CallOutcome> {
  if (!(ctx.dryRun && policyFor(ready.effect, "dry_run") === "stub")) return enterExecute(ctx, ready);
  if (!ready.existing) ctx.journal.insert({ ...rowOf(ready.request, effectKeyOf(ctx.branchId, ready.request.callId)), status: "queued", input: ready.input });
  return stub(ctx, ready);
}

async function stub(ctx: CallContext, call: ReadyCall): Promise<CallOutcome> {
  let stubbed: ToolResult = { status: "success", result: "Operation acknowledged." };
  if (call.tool.def.dryRunResult) {
    try {
      stubbed = normalizeResult(await call.tool.def.dryRunResult(call.input));
    } catch (e) {
      stubbed = { status: "error", error: `dryRunResult failed: ${errorMessage(e)}` };
    }
  }
  return finishCall(ctx, call, stubbed, stubbed.status === "success" ? "succeeded" : "failed", 0, { stubbed: true });
}

type Execute = (state: ThreadState, args: unknown, call: ToolCallContext) => Promise<unknown>;

/** Retries follow the effect policy: reads and idempotent calls only; writes run once. */
const retryable = (effect: Effect): boolean => policyFor(effect, "transient_failure") !== "record_failure";

/**
 * Stage 8 on: journals, runs (the only place a tool's `execute` is called) and records one call;
 * returns its final outcome, or parked (suspended, or after a stop).
 */
export async function enterExecute(ctx: CallContext, call: ReadyCall): Promise<CallOutcome> {
  const { request, tool, input, effect } = call;
  const effectKey = effectKeyOf(ctx.branchId, request.callId);
  const mark = { callId: request.callId, toolName: tool.name, effect };
  const bound = { callId: request.callId, tool, ...(request.turnId ? { turnId: request.turnId } : {}) };
  if (ctx.signal?.aborted) {
    // Run before (a suspended call going on, a cut one recovered): its work may have happened, so
    // the effect table's stop decides, as for a call the stop found running.
    if (call.existing && call.existing.attempts > 0) return afterAbort(ctx, call, ctx.stateFor(bound), call.existing.attempts, false);
    if (!call.existing) ctx.journal.insert({ ...rowOf(request, effectKey), status: "queued", input });
    return finishCall(ctx, call, { status: "error", error: "aborted: the thread was stopped before this call ran" }, "aborted", call.existing?.attempts ?? 0);
  }

  // A client tool runs nowhere here: its call waits for the client's answer (client.ts).
  if (isClientTool(tool.def)) return awaitClient(ctx, call);
  if (ctx.checkpoint) await ctx.checkpoint("before_journal", mark);
  const started: EventPayloads["tool_call_started"] = { callId: request.callId, toolName: tool.name, source: request.source, input: input ?? {} };
  const progressArg = tool.def.progressArgument;
  if (progressArg && input && typeof (input as Record<string, unknown>)[progressArg] === "string") {
    started.progress = (input as Record<string, string>)[progressArg];
  }
  // A call the policy simply re-runs after a restart (a read) waits for no flush; its row commits
  // with the result, like every other write of the request. A fresh one may even keep its row and
  // event in memory until its result comes, so each is written once.
  const wait = journalWait(effect, ctx.outputGate === true);
  const rerun = wait === "nothing";
  const held = rerun && !call.existing && ctx.holdStart !== undefined;
  // The journal row of anything but a read is durable before any effect of execute can leave, so
  // a restart finds the call: written now behind the output gate, or awaited where there is none.
  let journaled: Promise<void> | undefined;
  // The row keeps the class and setting it starts under: recovery after a deploy that redeclared the tool takes the more cautious (judge.ts).
  const startedUnder = startedAs(call);
  if (held) ctx.holdStart!({ ...rowOf(request, effectKey), status: "started", input, effect: startedUnder }, request.announced ? null : started);
  else if (call.existing) ctx.journal.start(request.callId, input, startedUnder);
  else if (wait === "commit" && ctx.journalDurably) journaled = ctx.journalDurably({ ...rowOf(request, effectKey), status: "started", input, effect: startedUnder });
  else ctx.journal.insert({ ...rowOf(request, effectKey), status: "started", input, effect: startedUnder });
  let attempts = (call.existing?.attempts ?? 0) + 1;
  if (wait === "commit") await (journaled ?? ctx.flush());
  if (ctx.checkpoint) await ctx.checkpoint("after_journal", mark);
  // A call announced while its arguments streamed had its event and hook then.
  if (!request.announced) {
    // A held read's event is held with its row; any other call's may wait for its finished one too.
    if (!held && ctx.holdStart) ctx.holdStart(null, started);
    else if (!held) ctx.emit("tool_call_started", started);
    if (ctx.beforeExecute) {
      try {
        await ctx.beforeExecute(started);
      } catch (e) {
        // The run was stopped while its hook ran (nothing waits for the hook then): this attempt never
        // ran; one that ran before (a suspended call going on) goes by the effect table, as above.
        if (ctx.signal?.aborted) {
          const before = call.existing?.attempts ?? 0;
          if (before > 0) return afterAbort(ctx, call, ctx.stateFor(bound), before, false);
          return finishCall(ctx, call, { status: "error", error: "aborted: the thread was stopped before the call ran (its tool_call_started hook was still running)" }, "aborted", 0);
        }
        finishCall(ctx, call, { status: "error", error: errorMessage(e) }, "failed", attempts);
        throw e;
      }
    }
  }

  const maxAttempts = retryable(effect) ? (tool.def.maxAttempts ?? DEFAULT_MAX_ATTEMPTS) : 1;
  // The provider dedups an idempotent call's key for its window from the first request, no longer:
  // a retry that would go out later may repeat the effect, so there is none (a recovered call's
  // window is what was left of it, recover.ts).
  const dedupUntil = policyFor(effect, "transient_failure") === "retry_in_window" ? Date.now() + (call.dedupWindowMs ?? 0) : Number.POSITIVE_INFINITY;
  let result: ToolResult;
  // A WeftError thrown by execute keeps its code and details (the offending path) in the record.
  let thrown: FinishExtra | undefined;
  for (;;) {
    // A fresh state per attempt: queued and invoked children are numbered per run of execute.
    const state = ctx.stateFor(bound);
    // Each attempt has a deadline; its signal fires on a stop or when the deadline passes.
    const timeoutMs = tool.def.timeoutMs ?? ctx.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    const attempt = new Attempt(ctx.signal, ctx.deadlines);
    const context = new AttemptContext(request.callId, effectKey, tool.name, attempts, attempt, call.approvedBy);
    // Named: a remote tool's name says which server did not answer.
    const late = () => new TransientError(`timed out: ${tool.name} did not finish within ${timeoutMs} ms (timeoutMs)`);
    const ended = await attempt.run(() => (tool.def.execute as Execute)(state, input, context), timeoutMs, late);
    if (ended.aborted && ctx.signal?.aborted) return afterAbort(ctx, call, state, attempts, true);
    const ran = ended.aborted ? { ok: false as const, error: ended.reason } : ended;
    if (ran.ok) {
      result = executeResult(ran.value, (text) => ctx.files.redact?.(text) ?? text);
      break;
    }
    // The nested work waits for a person: the call waits too, and resumes once nothing inside does.
    if (ran.error instanceof CallSuspended) return parkCall(ctx, request, ran.error.message, attempts);
    const backoff = backoffMs(attempts);
    const deduped = Date.now() + backoff <= dedupUntil;
    if (attempts < maxAttempts && isTransient(ran.error) && !ctx.signal?.aborted && deduped) {
      // The sleep holds no lock: other requests to the thread run meanwhile.
      await ctx.sleep(backoff);
      ctx.journal.attempt(request.callId);
      attempts += 1;
      continue;
    }
    result = resultFromThrown(ran.error);
    if (ran.error instanceof WeftError) thrown = { errorCode: ran.error.code, ...(ran.error.details ? { errorDetails: ran.error.details } : {}) };
    if ((!retryable(effect) || !deduped) && !isRefusal(ran.error)) {
      // The throw may have come after the request went out: say so, or a repeat repeats the effect.
      result.error = `${result.error}. ${UNKNOWN_OUTCOME}`;
      if (ctx.checkpoint) await ctx.checkpoint("after_effect", mark);
      const unknown = finishCall(ctx, call, result, "failed", attempts, { ...thrown, outcome: "unknown" });
      if (ctx.checkpoint) await ctx.checkpoint("after_result", mark);
      return unknown;
    }
    break;
  }
  if (ctx.checkpoint) await ctx.checkpoint("after_effect", mark);
  // Stage 9, then 10.
  const checked = checkOutput(tool, result);
  const outcome = finishCall(ctx, call, checked.result, checked.result.status === "success" ? "succeeded" : "failed", attempts, checked.extra ?? thrown);
  if (ctx.checkpoint) await ctx.checkpoint("after_result", mark);
  return outcome;
}
