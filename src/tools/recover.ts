/**
 * Restart recovery (weft's effect table, DESIGN.md promise 3): a call whose journal says started but that has
 * no result is re-run, reconciled, or parked by its effect class. A write is never run again.
 * @module
 */
import type { CallRecord } from "../protocol.js";
import type { CompiledTool } from "./catalog.js";
import { liveInput } from "./dispatch.js";
import { foundResult, finishCall, lookup, parkCall, runCall } from "./execute.js";
import { type CallOutcome, type CallRequest, type DispatchHost, effectKeyOf } from "./host.js";

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
 * Decides what happens to an interrupted call:
 * - read: run again;
 * - idempotent: run again with the same effect key while inside `dedupWindowMs`, else park;
 * - reconcilable: `lookup(effectKey)`; found -> recorded; not_found + final -> run again; else park;
 * - write (and undeclared): park for a person.
 */
export async function recoverCall(host: DispatchHost, record: CallRecord, now = Date.now()): Promise<CallOutcome> {
  const request = requestOf(record);
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
  let effect;
  try {
    effect = tool.effectOf(input);
  } catch {
    effect = "write" as const;
  }
  switch (effect) {
    case "read":
      return runCall(host, { ...ready, effect });
    case "idempotent": {
      const window = tool.def.dedupWindowMs ?? 0;
      const since = record.startedAt ?? record.createdAt;
      if (now - since <= window) return runCall(host, { ...ready, effect });
      return parkCall(host, request, `interrupted by a restart ${now - since} ms after it started, past its ${window} ms dedup window`, record.attempts);
    }
    case "reconcilable": {
      const state = host.stateFor({ callId: record.callId, tool, ...(record.turnId ? { turnId: record.turnId } : {}) });
      const answer = await lookup(tool, effectKeyOf(host.branchId, record.callId), state);
      if (answer.status === "found") return finishCall(host, ready, foundResult(answer.value), "succeeded", record.attempts);
      if (answer.status === "not_found" && tool.def.reconcile?.finality === "final") return runCall(host, { ...ready, effect });
      const why = answer.status === "not_found" ? "lookup found nothing, but its not_found is not final" : "lookup could not tell";
      return parkCall(host, request, `interrupted by a restart; ${why}`, record.attempts);
    }
    default:
      return parkCall(host, request, "interrupted by a restart; a write never runs twice, so a person must settle it", record.attempts);
  }
}
