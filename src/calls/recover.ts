/**
 * Restart recovery (weft's effect table): a call whose journal says started but that has
 * no result is re-run, reconciled, or parked by its effect class. A write is never run again.
 * @module
 */
import type { CompiledTool } from "../tools/catalog.js";
import { effectOrWrite } from "../tools/judge.js";
import { policyFor } from "../tools/policy.js";
import { type CallOutcome, effectKeyOf } from "./call.js";
import type { BookedCall, CallBook, CallContext, CallWorld } from "./context.js";
import { reconcileCall } from "./execute.js";
import { requestOf, storedInput } from "./input.js";
import { enterExecute } from "./pipeline.js";
import { finishCall, parkCall } from "./record.js";
import { isClientTool, parkForClient } from "./client.js";

/** Runs of one call a restart may cut short before the call ends `aborted` (crash loops end). */
export const MAX_RESTARTS = 3;

/**
 * Decides what happens to an interrupted call by the effect policy's `restart_after_journal`
 * column (src/tools/policy.ts): run again, run again inside the dedup window, reconcile, or
 * park. The class and its setting are the more cautious of those its row was started under and
 * the tool's now, so a write redeclared `read` by a later deploy is still parked, and a widened
 * window or a lookup redeclared `final` does not run it again. A call run again enters the
 * pipeline at execute (stage 8).
 */
export async function recoverCall(ctx: CallContext, record: BookedCall, now = Date.now()): Promise<CallOutcome> {
  const request = requestOf(record);
  await ctx.checkpoint?.("recovering", { callId: record.callId, toolName: record.toolName });
  // A call whose runs keep ending in a restart (it crashes its thread) is not run forever.
  const restarts = ctx.journal.restarted(record.callId);
  if (restarts >= MAX_RESTARTS) {
    const error = `aborted: the thread restarted during each of ${restarts} runs of this call, so it will not run again; its effect may have happened`;
    return finishCall(ctx, { request, startedAt: now }, { status: "error", error }, "aborted", record.attempts, { outcome: "unknown" });
  }
  let tool: CompiledTool;
  try {
    tool = ctx.catalog.get(record.toolName);
  } catch {
    return parkCall(ctx, request, "interrupted by a restart, and the tool no longer exists", record.attempts);
  }
  const { input, refused } = await storedInput(tool, record, ctx.argsKey);
  // A client tool's call cut before its park (its tool_call_started hook ran): nothing ran here, so the client is asked.
  if (isClientTool(tool.def) && !refused) return parkForClient(ctx, request, input, record.attempts);
  const ready = { request, tool, input, existing: record, startedAt: now, ...(record.approvedBy ? { approvedBy: record.approvedBy } : {}) };
  // It started before the restart: a predicate failing now cannot refuse it, nor a redeclaration
  // since then make it less cautious than the class it started under (see judge.ts).
  const terms = effectOrWrite(tool, input, record.effect);
  // A deploy changed the tool's schema: input it refuses never runs, and it may have run, so a person settles it.
  const rerun = (under = terms) =>
    refused
      ? parkCall(ctx, request, `interrupted by a restart, and the tool's input schema changed since it started (${refused.message})`, record.attempts)
      : enterExecute(ctx, { ...ready, ...under });
  switch (policyFor(terms.effect, "restart_after_journal")) {
    case "rerun":
      return rerun();
    case "rerun_in_window": {
      const window = terms.dedupWindowMs ?? 0;
      const since = record.startedAt ?? record.createdAt;
      // Run again under the window left: the row's start moves to now, and a second restart must
      // still measure from the first request, which the service's dedup counts from.
      if (now - since <= window) return rerun({ ...terms, dedupWindowMs: window - (now - since) });
      return parkCall(ctx, request, `interrupted by a restart ${now - since} ms after it started, past its ${window} ms dedup window`, record.attempts);
    }
    case "lookup_or_rerun": {
      const state = ctx.stateFor({ callId: record.callId, tool, ...(record.turnId ? { turnId: record.turnId } : {}) });
      const answer = await reconcileCall(tool, effectKeyOf(ctx.branchId, record.callId), state, terms.finality);
      // What lookup found is the call's result, an error included: its status follows it, as after a stop.
      if (answer.decision === "found") return finishCall(ctx, ready, answer.result, answer.result.status === "success" ? "succeeded" : "failed", record.attempts);
      if (answer.decision === "nothing_happened") return rerun();
      return parkCall(ctx, request, `interrupted by a restart; ${answer.why}`, record.attempts);
    }
    default:
      return parkCall(ctx, request, "interrupted by a restart; a write never runs twice, so a person must settle it", record.attempts);
  }
}

/** Calls a person approved whose run had not begun when the thread restarted. */
export function approvedWaiting(journal: CallBook) {
  return [...journal.list(1000, 0, "awaiting_approval")].filter((c) => c.approvedBy !== undefined);
}

/**
 * Whether `record` is a call of a live turn whose nested (invoked) call waits for a person: its
 * turn resumes it under the turn's execution, where it can wait for the person again.
 */
export function heldByPerson(world: Pick<CallWorld, "journal" | "turnStatus">, record: { callId: string; turnId?: string }): boolean {
  const turn = record.turnId ? world.turnStatus(record.turnId) : undefined;
  return (turn === "running" || turn === "waiting") && world.journal.invokedWaiting(record.callId);
}
