/**
 * Direct tool calls (the Agent SDK tools reference, "Call a tool without a model turn") against a thread: the same
 * pipeline as model calls, with the busy-session rule.
 * @module
 */
import { WeftError } from "../errors.js";
import { orderedId } from "../ids.js";
import { waitsForPersonStatus } from "../protocol.js";
import { validateInput } from "../tools/dispatch.js";
import type { ThreadEngine } from "./engine.js";
import type { TurnRunner } from "./runner.js";

/** Input of a direct call. */
export interface DirectCallInput {
  toolName: string;
  input: unknown;
  /** Caller-chosen id; default `tool_<name>_<time><random>` (see `orderedId`). */
  callId?: string;
}

/** The Agent SDK tools reference's direct-call outcome `{ ok, toolName, callId, isError, result, durationMs }`. */
export interface DirectCallOutcome {
  /** False exactly when `isError` is true. */
  ok: boolean;
  toolName: string;
  callId: string;
  isError: boolean;
  /** The tool's result text (in full, even when the record was capped); null when it has none. */
  result: string | null;
  /** The error message when `isError`, the same text `tool_call_finished` carries in `error`. */
  error?: string;
  durationMs: number;
  attempts: number;
  /** The call's status; `awaiting_approval` or `parked` means it waits for a person. */
  status: string;
}

/** True while a direct call waits for a person (an approval, or a parked outcome to settle). */
export const outcomeWaitsForPerson = (o: Pick<DirectCallOutcome, "status">) => waitsForPersonStatus(o.status);

/**
 * A direct call's outcome as JSON text, made where the outcome is: one string crosses to the
 * Worker, which sends it on, instead of an object copied across and serialized again there.
 */
export interface DirectCallJson {
  /** `JSON.stringify` of the {@link DirectCallOutcome}, already cleaned of the thread's secrets. */
  json: string;
  /** {@link outcomeWaitsForPerson} of the outcome. */
  waits: boolean;
}

/** The JSON form of a direct call's (cleaned) outcome. */
export function outcomeJson(outcome: DirectCallOutcome): DirectCallJson {
  return { json: JSON.stringify(outcome), waits: outcomeWaitsForPerson(outcome) };
}

/**
 * Runs a direct call. A busy thread runs reads alongside the turn and refuses the rest.
 * @throws WeftError `unknown_tool` (404), `invalid_tool_input` (400), `session_busy` (409).
 */
export async function directCall(engine: ThreadEngine, runner: TurnRunner, call: DirectCallInput): Promise<DirectCallOutcome> {
  const tool = engine.catalog.get(call.toolName);
  const input = call.input ?? {};
  // Checked before dispatch, so HTTP answers 400 and busy-ness is judged by effect; the pipeline takes the result.
  const checked = validateInput(tool, input);
  if (!checked.ok) throw checked.error;
  if (runner.busy && tool.effectOf(checked.input) !== "read") {
    throw new WeftError("session_busy", `this thread's turn has not finished; "${tool.name}" is not a read, so it is refused now: retry after the turn finishes`, {
      toolName: tool.name,
    });
  }
  const callId = call.callId ?? orderedId(`tool_${tool.name}`, 12);
  const { outcome } = await engine.dispatchWithQueue(null, {
    callId,
    toolName: tool.name,
    args: { value: input },
    source: "direct",
    validated: { input: checked.input },
    ...(call.callId === undefined ? { fresh: true } : {}),
  });
  // A refusal before execute (no attempt) is the caller's error; an output that fails its schema is a result.
  if (outcome.errorCode && outcome.attempts === 0) {
    const message = (outcome.result.error ?? "refused").replace(`${outcome.errorCode}: `, "");
    throw new WeftError(outcome.errorCode, message, outcome.errorDetails);
  }
  if (!outcome.final) {
    // Waiting for a person is neither a success nor an error yet.
    return { ok: false, toolName: tool.name, callId, isError: false, result: null, durationMs: outcome.durationMs, attempts: outcome.attempts, status: outcome.status };
  }
  // No model reads a direct call's answer, so it carries the full text even when the record was capped.
  const full = outcome.fullResultPath ? engine.store.files.read(outcome.fullResultPath) : undefined;
  return {
    ok: !outcome.isError,
    toolName: tool.name,
    callId,
    isError: outcome.isError,
    result: full ?? outcome.result.result ?? null,
    ...(outcome.isError ? { error: outcome.result.error ?? "error" } : {}),
    durationMs: outcome.durationMs,
    attempts: outcome.attempts,
    status: outcome.status,
  };
}
