/**
 * Restart recovery (weft's effect table, DESIGN.md promise 3): a call whose journal says started but that has
 * no result is re-run, reconciled, or parked by its effect class. A write is never run again.
 * @module
 */
import type { CallRecord } from "../protocol.js";
import type { CompiledTool } from "../tools/catalog.js";
import { liveInput } from "./dispatch.js";
import { reconcileCall, runCall } from "./execute.js";
import { finishCall, parkCall } from "./record.js";
import { type CallOutcome, type CallRequest, type DispatchHost, effectKeyOf } from "./host.js";
import { policyFor } from "../tools/policy.js";
import { effectOrWrite } from "../tools/judge.js";

/** Runs of one call a restart may cut short before the call ends `aborted` (crash loops end). */
export const MAX_RESTARTS = 3;

/** The request a stored call was made with. */
export function requestOf(record: CallRecord): CallRequest {
  return {
    callId: record.callId,
    toolName: record.toolName,
    args: { text: record.argsText },
    source: record.source,
    ...(record.turnId ? { turnId: record.turnId } : {}),
  };
}

/**
 * Decides what happens to an interrupted call by the effect policy's `restart_after_journal`
 * column (src/tools/policy.ts): run again, run again inside the dedup window, reconcile, or park.
 */
export async function recoverCall(host: DispatchHost, record: CallRecord, now = Date.now()): Promise<CallOutcome> {
  const request = requestOf(record);
  await host.checkpoint?.("recovering", { callId: record.callId, toolName: record.toolName });
  // A call whose runs keep ending in a restart (it crashes its thread) is not run forever.
  const restarts = host.journal.restarted(record.callId);
  if (restarts >= MAX_RESTARTS) {
    const error = `aborted: the thread restarted during each of ${restarts} runs of this call, so it will not run again; its effect may have happened`;
    return finishCall(host, { request, startedAt: now }, { status: "error", error }, "aborted", record.attempts, { outcome: "unknown" });
  }
  let tool: CompiledTool;
  try {
    tool = host.catalog.get(record.toolName);
  } catch {
    return parkCall(host, request, "interrupted by a restart, and the tool no longer exists", record.attempts);
  }
  const input = await liveInput(tool, record);
  const ready = { request, tool, input, existing: record, startedAt: now, ...(record.approvedBy ? { approvedBy: record.approvedBy } : {}) };
  // It started before the restart: a predicate failing now cannot refuse it (see judge.ts).
  const effect = effectOrWrite(tool, input);
  switch (policyFor(effect, "restart_after_journal")) {
    case "rerun":
      return runCall(host, { ...ready, effect });
    case "rerun_in_window": {
      const window = tool.def.dedupWindowMs ?? 0;
      const since = record.startedAt ?? record.createdAt;
      if (now - since <= window) return runCall(host, { ...ready, effect });
      return parkCall(host, request, `interrupted by a restart ${now - since} ms after it started, past its ${window} ms dedup window`, record.attempts);
    }
    case "lookup_or_rerun": {
      const state = host.stateFor({ callId: record.callId, tool, ...(record.turnId ? { turnId: record.turnId } : {}) });
      const answer = await reconcileCall(tool, effectKeyOf(host.branchId, record.callId), state);
      if (answer.decision === "found") return finishCall(host, ready, answer.result, "succeeded", record.attempts);
      if (answer.decision === "nothing_happened") return runCall(host, { ...ready, effect });
      return parkCall(host, request, `interrupted by a restart; ${answer.why}`, record.attempts);
    }
    default:
      return parkCall(host, request, "interrupted by a restart; a write never runs twice, so a person must settle it", record.attempts);
  }
}
