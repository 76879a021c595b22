/**
 * What a restart left behind, recovered at rest (outside any open step): approvals that were
 * durable before their call began run now, and calls started without a result are re-run,
 * reconciled or parked by their effect policy (src/tools/recover.ts). A call held by a live turn's
 * nested call that waits for a person is left to that turn.
 * @module
 */
import { approveCall } from "../calls/decide.js";
import { type CallOutcome, outcomeOf } from "../calls/dispatch.js";
import { createDispatchHost } from "./dispatch-host.js";
import type { ThreadEngine } from "./engine.js";

/** Whether a restart left calls to recover: started without a result, or approved but not begun. */
export function hasRecoverableCalls(engine: ThreadEngine): boolean {
  return engine.store.calls.unfinished().length > 0 || approvedWaiting(engine).length > 0;
}

/** Recovers every call a restart interrupted; answers the outcome of each, in the order handled. */
export async function recoverCalls(engine: ThreadEngine): Promise<CallOutcome[]> {
  const done: CallOutcome[] = [];
  // An approval that was durable when the thread restarted, before its call began: run it now.
  for (const record of approvedWaiting(engine)) {
    done.push(await engine.withCall(record.callId, () => approveAgain(createDispatchHost(engine, null), record.callId, record.approvedBy!)));
    engine.notifyDecided(record.callId);
  }
  for (const record of engine.store.calls.unfinished()) {
    // A call cut while it waited inside invokeTool is recovered by its turn, which resumes it
    // under the turn's execution, where it can wait for the person again.
    if (heldByPerson(engine, record)) continue;
    const request = { callId: record.callId, toolName: record.toolName, args: { text: record.argsText }, source: record.source };
    // A call may have run inside a prompt or on side b: recovery looks its name up everywhere.
    done.push(await engine.dispatchOne(null, request, engine.callables.everything()));
  }
  return done;
}

function approvedWaiting(engine: ThreadEngine) {
  return engine.store.calls.list(1000, 0, "awaiting_approval").filter((c) => c.approvedBy !== undefined);
}

/** Whether `record` is a call of a live turn whose nested (invoked) call waits for a person. */
function heldByPerson(engine: ThreadEngine, record: { callId: string; turnId?: string }): boolean {
  const turn = record.turnId ? engine.store.turns.statusOf(record.turnId) : undefined;
  return (turn === "running" || turn === "waiting") && engine.store.calls.invokedWaiting(record.callId);
}

/** Runs a call approved before a restart, unless it was decided meanwhile. */
async function approveAgain(host: ReturnType<typeof createDispatchHost>, callId: string, approvedBy: string): Promise<CallOutcome> {
  const record = host.journal.get(callId)!;
  if (record.status !== "awaiting_approval") return outcomeOf(host, record);
  return approveCall(host, callId, approvedBy);
}
