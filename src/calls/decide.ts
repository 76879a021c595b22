/**
 * What a person does to a waiting call: approve or deny one that needs approval, settle one that
 * is parked. Each ends in exactly one final result. An approval enters the pipeline at its effect
 * judge (stage 5) with `approvedBy`; a settlement's retry enters at execute (stage 8).
 * @module
 */
import { WeftError, echoedValue, quotedValue } from "../errors.js";
import type { CallRecord } from "../protocol.js";
import type { CompiledTool } from "../tools/catalog.js";
import { effectOrWrite } from "../tools/judge.js";
import type { CallOutcome } from "./call.js";
import type { BookedCall, CallContext } from "./context.js";
import { holdsArgs, requestOf, storedInput } from "./input.js";
import { enterExecute, enterJudge } from "./pipeline.js";
import { finishCall, outcomeOf } from "./record.js";
import type { ClientAnswer } from "../protocol.js";
import { answerCall, isClientTool } from "./client.js";

/**
 * How a parked call is settled; `settledBy` is the verified user who did. A person gives a
 * verdict (`succeeded`, `failed`) or has it run again (`retry`); the client answers a client
 * tool's call (`answered`: client.ts), which is checked and recorded as a result of `execute` is.
 */
export type Settlement = (
  | { outcome: "succeeded"; result: string }
  | { outcome: "failed"; error: string }
  | { outcome: "retry" }
  | { outcome: "answered"; answer: ClientAnswer }
) & { settledBy?: string };

/**
 * The call waiting in `status`, and its tool; or, when `madeAlready` says the call holds the very
 * decision asked for, the call as it stands (a client that lost the first answer retries, and gets
 * it rather than a refusal of its own decision). `argsHash`, when given, must name the arguments
 * the call holds: a decision made for another version of them is refused, approval or denial alike.
 */
function waitingCall(
  ctx: CallContext,
  callId: string,
  status: "awaiting_approval" | "parked",
  argsHash?: string,
  madeAlready?: (record: CallRecord) => boolean,
): { repeat: CallOutcome } | { record: BookedCall; tool: CompiledTool } {
  const record = ctx.journal.get(callId);
  if (!record) throw new WeftError("call_not_found", `no call ${quotedValue(callId)} in this thread`, { callId: echoedValue(callId) });
  const sameArgs = argsHash === undefined || argsHash === record.argsHash;
  if (record.status !== status && sameArgs && madeAlready?.(record)) return { repeat: { ...outcomeOf(ctx, record), repeated: true } };
  if (record.status !== status) {
    throw new WeftError("call_not_waiting", `call ${callId} is ${record.status}, not ${status.replace("_", " ")}`, {
      callId,
      status: record.status,
    });
  }
  if (!sameArgs) throw new WeftError("approval_mismatch", "argsHash: does not match the arguments this call holds", { callId, argsHash: record.argsHash, path: ["argsHash"] });
  return { record, tool: ctx.catalog.get(record.toolName) };
}

/**
 * Approves a call: it runs exactly once, with `approvedBy` recorded and passed to `execute`. An
 * approval obeys the thread's other rules: its effect is judged again, and a dry-run thread stubs it.
 * The same person approving it again is answered with the call as it stands, `repeated`; it does not run again.
 * @throws WeftError `call_not_found`, `call_not_waiting` (decided otherwise),
 * or `approval_mismatch` when `argsHash` is given and differs from the arguments the call holds.
 */
export async function approveCall(ctx: CallContext, callId: string, approvedBy: string, argsHash?: string): Promise<CallOutcome> {
  const waiting = waitingCall(ctx, callId, "awaiting_approval", argsHash, (r) => r.approvedBy === approvedBy);
  if ("repeat" in waiting) return waiting.repeat;
  const { record, tool } = waiting;
  if (!(await holdsArgs(record.argsHash, record.input, ctx.argsKey))) {
    throw new WeftError("approval_mismatch", "the call's stored arguments changed since approval was requested", { callId });
  }
  const { input, refused } = await storedInput(tool, record, ctx.argsKey);
  ctx.journal.setApprovedBy(callId, approvedBy);
  // A deploy changed the tool's schema while the call waited: what it refuses now never runs.
  // Refused in the write that records the approval, so no recovery runs it with the old input.
  if (refused) {
    const error = `${refused.code}: ${refused.message} (the tool's input schema changed since this call asked for approval; it did not run)`;
    return finishCall(ctx, { request: requestOf(record), tool, startedAt: Date.now() }, { status: "error", error }, "failed", 0, {
      errorCode: refused.code,
      ...(refused.details ? { errorDetails: refused.details } : {}),
    });
  }
  // The approval is durable before anything runs or the request answers.
  await ctx.flush();
  // It never ran (a call waiting for approval was never started): the tool as it is now judges its effect.
  return enterJudge(ctx, { request: requestOf(record), tool, input, existing: record, approvedBy, startedAt: Date.now() });
}

/**
 * Denies a call: the model sees a denial result; `execute` never runs. The same person denying
 * it again for the same reason is answered with the denied call (`repeated`).
 * @throws WeftError `call_not_found`, `call_not_waiting`, or `approval_mismatch` when `argsHash` is given and differs.
 */
export function denyCall(ctx: CallContext, callId: string, deniedBy: string, reason?: string, argsHash?: string): CallOutcome {
  const error = `denied by ${deniedBy}${reason ? `: ${reason}` : ""}`;
  const waiting = waitingCall(ctx, callId, "awaiting_approval", argsHash, (r) => r.status === "denied" && r.decidedBy === deniedBy && holdsText(ctx, r, "error", error));
  if ("repeat" in waiting) return waiting.repeat;
  const { record, tool } = waiting;
  ctx.journal.setDecidedBy(callId, deniedBy);
  return finishCall(ctx, { request: requestOf(record), tool, startedAt: Date.now() }, { status: "error", error }, "denied", 0);
}

/**
 * Whether `record`'s result holds `text` in `field` as it would have stored it: the thread's
 * secrets replaced, and in full from its file when the record's text was cut to the result cap.
 */
function holdsText(ctx: CallContext, record: CallRecord, field: "result" | "error", text: string): boolean {
  const stored = record.fullResultPath ? ctx.files.readFile?.(record.fullResultPath) : record.result?.[field];
  return stored !== undefined && (stored === text || stored === ctx.files.redact?.(text));
}

/**
 * Whether a call already holds this settlement by this person: the same verdict with the same
 * text. A `retry` is never taken as made: its run may have parked the call again.
 */
function settledAlready(ctx: CallContext, record: CallRecord, settlement: Settlement): boolean {
  if (settlement.settledBy === undefined || record.decidedBy !== settlement.settledBy) return false;
  if (settlement.outcome === "succeeded") return record.status === "succeeded" && holdsText(ctx, record, "result", settlement.result);
  if (settlement.outcome === "failed") return record.status === "failed" && holdsText(ctx, record, "error", settlement.error);
  return false;
}

/**
 * Settles a parked call with a person's verdict, runs it again on `retry`, or records the
 * client's answer to a client tool's call (`answered`).
 * @throws WeftError `call_not_found`; `call_not_waiting` when the call is not parked (a second
 * answer included) or an answer is given for a call that is not a client tool's;
 * `tool_not_callable` on `retry` of a client tool's call; `invalid_tool_input` on `retry` when
 * the tool as deployed now refuses the call's stored input: nothing runs and the call stays parked.
 */
export async function settleCall(ctx: CallContext, callId: string, settlement: Settlement): Promise<CallOutcome> {
  // A second answer is refused, never taken as the first one made again (only its Idempotency-Key repeats it).
  const waiting = waitingCall(ctx, callId, "parked", undefined, (r) => settlement.outcome !== "answered" && settledAlready(ctx, r, settlement));
  if ("repeat" in waiting) return waiting.repeat;
  const { record, tool } = waiting;
  if (settlement.outcome === "answered") {
    return answerCall(ctx, record, tool, settlement.answer, settlement.settledBy);
  }
  if (settlement.outcome === "retry" && isClientTool(tool.def)) {
    throw new WeftError("tool_not_callable", `call ${callId} is a client tool's (${record.toolName}): weft has nothing to run again; answer it (POST /threads/:id/calls/:callId/result) or settle it succeeded or failed`, { callId });
  }
  const { input, refused } = settlement.outcome === "retry" ? await storedInput(tool, record, ctx.argsKey) : { input: undefined };
  // It may have run already: run again only with input the tool as deployed accepts. It stays
  // parked, undecided, for the person to settle by hand.
  if (refused) {
    throw new WeftError("invalid_tool_input", `${refused.message} (the tool's input schema changed since this call ran; it was not run again and stays parked)`, {
      callId,
      ...refused.details,
    });
  }
  if (settlement.settledBy !== undefined) ctx.journal.setDecidedBy(callId, settlement.settledBy);
  const call = { request: requestOf(record), tool, startedAt: Date.now() };
  if (settlement.outcome === "succeeded") return finishCall(ctx, call, { status: "success", result: settlement.result }, "succeeded", record.attempts);
  if (settlement.outcome === "failed") return finishCall(ctx, call, { status: "error", error: settlement.error }, "failed", record.attempts);
  // It ran before it was parked: a predicate failing now cannot refuse it, nor a redeclaration
  // since then make it less cautious than the class it started under (see judge.ts).
  const terms = effectOrWrite(tool, input, record.effect);
  const outcome = await enterExecute(ctx, { ...call, input, ...terms, existing: record, ...(record.approvedBy ? { approvedBy: record.approvedBy } : {}) });
  return outcome.final ? outcome : outcomeOf(ctx, ctx.journal.get(callId)!);
}
