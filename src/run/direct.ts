/**
 * Direct tool calls (the Agent SDK tools reference, "Call a tool without a model turn") against a thread: the same
 * pipeline as model calls, with the busy-session rule.
 * @module
 */
import { WeftError } from "../errors.js";
import { DIRECT_CALL_PREFIX } from "../calls/call.js";
import { orderedId } from "../ids.js";
import { waitsForPersonStatus } from "../protocol.js";
import type { Effect } from "../tools/types.js";
import type { RunWorld } from "./world.js";
import type { TurnRunner } from "./turn-runner.js";
import type { DirectCallInput, DirectCallOutcome } from "./rpc-shapes.js";

/** True while a direct call waits for a person (an approval, or a parked outcome to settle). */
export const outcomeWaitsForPerson = (o: Pick<DirectCallOutcome, "status">) => waitsForPersonStatus(o.status);

/**
 * A direct call's outcome as one string for the Worker: `w` (it waits for a person) or `d`, then
 * its JSON text. Made where the outcome is, it crosses the RPC as a primitive and goes out as it
 * came, where an object is copied across (an object result costs workerd ~13 us more per call
 * than a string, measured) and serialized again in the Worker. Read it with {@link readOutcomeText}.
 */
export function outcomeText(outcome: DirectCallOutcome): string {
  return (outcomeWaitsForPerson(outcome) ? "w" : "d") + JSON.stringify(outcome);
}

/** The parts of an {@link outcomeText}: the outcome's JSON text, and whether the call waits for a person. */
export function readOutcomeText(text: string): { json: string; waits: boolean } {
  return { json: text.slice(1), waits: text.startsWith("w") };
}

/** The busy-session rule: while a turn runs, only a read is admitted. */
function busyRule(runner: TurnRunner, toolName: string): (effect: Effect) => void {
  return (effect) => {
    if (runner.busy && effect !== "read") {
      throw new WeftError("session_busy", `this thread's turn has not finished; "${toolName}" is not a read, so it is refused now: retry after the turn finishes`, { toolName });
    }
  };
}

/**
 * Runs a direct call: a request to the call runner like any other, which refuses an unknown tool
 * or a bad input before anything is stored. A busy thread runs reads alongside the turn and
 * refuses the rest, judged by the effect the pipeline judges once.
 * @throws WeftError `unknown_tool` (404), `invalid_tool_input` (400), `session_busy` (409),
 * `agent_not_found` (404) when the thread's agent is no longer deployed.
 */
export async function directCall(engine: RunWorld, runner: TurnRunner, call: DirectCallInput): Promise<DirectCallOutcome> {
  engine.requireAgent();
  const toolName = call.toolName;
  const callId = call.callId ?? orderedId(`${DIRECT_CALL_PREFIX}${toolName}`, 12);
  const { outcome } = await engine.calls.requestWithQueue(null, {
    callId,
    toolName,
    args: { value: call.input ?? {} },
    source: "direct",
    refuseUnstored: call.recordRefusal !== true,
    admit: busyRule(runner, toolName),
    ...(call.callId === undefined ? { fresh: true } : {}),
  });
  // A refusal before execute (no attempt) is the caller's error; an output that fails its schema is a result.
  if (outcome.errorCode && outcome.attempts === 0) {
    const message = (outcome.result.error ?? "refused").replace(`${outcome.errorCode}: `, "");
    throw new WeftError(outcome.errorCode, message, outcome.errorDetails);
  }
  if (!outcome.final) {
    // Waiting for a person is neither a success nor an error yet. An approval is bound to the
    // record's argsHash (keyed: it reveals nothing of a secret argument), which the answer names so
    // the caller can approve exactly these arguments without reading the call first.
    const argsHash = outcome.status === "awaiting_approval" ? engine.store.calls.get(callId)?.argsHash : undefined;
    return { ok: false, toolName, callId, isError: false, result: null, durationMs: outcome.durationMs, attempts: outcome.attempts, status: outcome.status, ...(argsHash ? { argsHash } : {}) };
  }
  // No model reads a direct call's answer, so it carries the full text even when the record was capped.
  const full = outcome.fullResultPath ? engine.store.files.read(outcome.fullResultPath) : undefined;
  return {
    ok: !outcome.isError,
    toolName,
    callId,
    isError: outcome.isError,
    result: full ?? outcome.result.result ?? null,
    ...(outcome.isError ? { error: outcome.result.error ?? "error" } : {}),
    durationMs: outcome.durationMs,
    attempts: outcome.attempts,
    status: outcome.status,
  };
}
