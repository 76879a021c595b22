/**
 * What a person does to a waiting call: approve or deny one that needs approval, settle one that
 * is parked. Each ends in exactly one final result (DESIGN.md promises 1 and 4).
 * @module
 */
import { WeftError } from "../errors.js";
import type { ToolResult } from "../protocol.js";
import { argsHashOf, liveInput, outcomeOf, stubCall, stubbedHere } from "./dispatch.js";
import { runCall } from "./execute.js";
import { finishCall } from "./record.js";
import type { CallOutcome, DispatchHost } from "./host.js";
import { requestOf } from "./recover.js";
import { effectOrWrite, judgeEffect } from "../tools/judge.js";

/** How a person settles a parked call; `settledBy` is the verified user who did. */
export type Settlement = ({ outcome: "succeeded"; result: string } | { outcome: "failed"; error: string } | { outcome: "retry" }) & { settledBy?: string };

function waitingCall(host: DispatchHost, callId: string, status: "awaiting_approval" | "parked") {
  const record = host.journal.get(callId);
  if (!record) throw new WeftError("call_not_found", `no call ${JSON.stringify(callId)} in this thread`, { callId });
  if (record.status !== status) {
    throw new WeftError("call_not_waiting", `call ${callId} is ${record.status}, not ${status.replace("_", " ")}`, {
      callId,
      status: record.status,
    });
  }
  return { record, tool: host.catalog.get(record.toolName) };
}

/**
 * Approves a call: it runs exactly once, with `approvedBy` recorded and passed to `execute`.
 * @throws WeftError `call_not_found`, `call_not_waiting`, or `approval_mismatch` when `argsHash`
 * is given and differs from the arguments the call holds.
 */
export async function approveCall(host: DispatchHost, callId: string, approvedBy: string, argsHash?: string): Promise<CallOutcome> {
  const { record, tool } = waitingCall(host, callId, "awaiting_approval");
  if (argsHash !== undefined && argsHash !== record.argsHash) {
    throw new WeftError("approval_mismatch", "argsHash does not match the arguments this call holds", { callId, argsHash: record.argsHash });
  }
  if (record.argsHash !== (await argsHashOf(record.input))) {
    throw new WeftError("approval_mismatch", "the call's stored arguments changed since approval was requested", { callId });
  }
  host.journal.setApprovedBy(callId, approvedBy);
  // The approval is durable before anything runs or the request answers.
  await host.flush();
  const input = await liveInput(tool, record);
  const ready = { request: requestOf(record), tool, input, existing: record, approvedBy, startedAt: Date.now() };
  const effect = judgeEffect(tool, input);
  if (!effect.ok) return finishCall(host, ready, { status: "error", error: effect.error }, "failed", 0);
  // An approval obeys the thread's other rules: on a dry-run thread the call is stubbed.
  if (stubbedHere(host, effect.value)) return stubCall(host, { ...ready, effect: effect.value });
  return runCall(host, { ...ready, effect: effect.value });
}

/** Denies a call: the model sees a denial result; `execute` never runs. */
export function denyCall(host: DispatchHost, callId: string, deniedBy: string, reason?: string): CallOutcome {
  const { record, tool } = waitingCall(host, callId, "awaiting_approval");
  host.journal.setDecidedBy(callId, deniedBy);
  const result: ToolResult = { status: "error", error: `denied by ${deniedBy}${reason ? `: ${reason}` : ""}` };
  return finishCall(host, { request: requestOf(record), tool, startedAt: Date.now() }, result, "denied", 0);
}

/** Settles a parked call with a person's verdict, or runs it again on `retry`. */
export async function settleCall(host: DispatchHost, callId: string, settlement: Settlement): Promise<CallOutcome> {
  const { record, tool } = waitingCall(host, callId, "parked");
  if (settlement.settledBy !== undefined) host.journal.setDecidedBy(callId, settlement.settledBy);
  const call = { request: requestOf(record), tool, startedAt: Date.now() };
  if (settlement.outcome === "succeeded") return finishCall(host, call, { status: "success", result: settlement.result }, "succeeded", record.attempts);
  if (settlement.outcome === "failed") return finishCall(host, call, { status: "error", error: settlement.error }, "failed", record.attempts);
  const input = await liveInput(tool, record);
  // It ran before it was parked: a predicate failing now cannot refuse it (see judge.ts).
  const effect = effectOrWrite(tool, input);
  const outcome = await runCall(host, { ...call, input, effect, existing: record, ...(record.approvedBy ? { approvedBy: record.approvedBy } : {}) });
  return outcome.final ? outcome : outcomeOf(host, host.journal.get(callId)!);
}
