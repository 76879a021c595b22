/**
 * Stop as a transition of a call that waits when its run is stopped: every call id still gets
 * one final result. A call that never ran is recorded `aborted`; one that
 * ran ends as the effect table's "stopped while running" column says.
 * @module
 */
import type { CallStatus } from "../protocol.js";
import { effectOrWrite } from "../tools/judge.js";
import type { CallOutcome } from "./call.js";
import type { BookedCall, CallContext } from "./context.js";
import { afterAbort } from "./execute.js";
import { waitsForClient } from "./client.js";
import { liveInput, requestOf } from "./input.js";
import { finishCall, outcomeOf } from "./record.js";
import { resumableOf } from "./suspend.js";

/**
 * Ends `record`, which waits for a person (awaiting approval, or parked) while its run is
 * stopped. Awaiting approval: it never ran, so it is `aborted`, and a later decision finds it
 * decided (`call_not_waiting`); so is a client tool's call waiting for its answer. Parked while
 * work inside it waits (a prompt or agent called as a tool): it ran, so the effect table decides. Parked for a person to settle: that is already the
 * table's outcome for a stopped write, and a person still settles it.
 */
export async function stopWaiting(ctx: CallContext, record: BookedCall): Promise<CallOutcome> {
  const request = requestOf(record);
  if (record.status === "awaiting_approval") {
    const error = "aborted: the thread was stopped before a person decided; the call did not run";
    return finishCall(ctx, { request, startedAt: Date.now() }, { status: "error", error }, "aborted", record.attempts);
  }
  const tool = ctx.catalog.has(record.toolName) ? ctx.catalog.get(record.toolName) : undefined;
  // Nothing of it ran here, and no answer can reach a stopped run: it ends as an approval's wait does.
  if (tool && waitsForClient(record, tool)) {
    const error = "aborted: the thread was stopped before the client answered";
    // It waited from its start: the time recorded is that wait, as an answer's is.
    return finishCall(ctx, { request, tool, startedAt: record.startedAt ?? record.createdAt }, { status: "error", error }, "aborted", record.attempts);
  }
  if (record.status !== "parked" || !tool || !resumableOf(tool.def)) return outcomeOf(ctx, record);
  const input = await liveInput(tool, record, ctx.argsKey);
  // It ran: the class it started under still holds, whatever a deploy since declares (see judge.ts).
  const call = { request, tool, input, ...effectOrWrite(tool, input, record.effect), existing: record, startedAt: Date.now() };
  const state = ctx.stateFor({ callId: record.callId, tool, ...(record.turnId ? { turnId: record.turnId } : {}) });
  return afterAbort(ctx, call, state, record.attempts, false);
}

/** What finding a stopped run's open calls reads: the thread's calls by status, and one by id. */
export interface OpenCallSource {
  list(limit: number, offset: number, status: CallStatus): Iterable<BookedCall>;
  get(callId: string): BookedCall | undefined;
}

/**
 * The calls of the run `flowId` that still wait when it is stopped (queued, awaiting approval,
 * parked), at any depth below it (queued, invoked, or made inside a nested run): those it never
 * ran first, then parked ones deepest first, so a suspended call is ended after the work inside it.
 */
export function openCallsOf(calls: OpenCallSource, flowId: string): BookedCall[] {
  const ofRun = (record: BookedCall): boolean => {
    for (let at: BookedCall | undefined = record, hops = 0; at && hops < 64; at = at.parentCallId ? calls.get(at.parentCallId) : undefined, hops++) {
      if (at.turnId === flowId) return true;
    }
    return false;
  };
  return (["queued", "awaiting_approval", "parked"] as const).flatMap((status) => [...calls.list(1000, 0, status)].filter(ofRun).reverse());
}

