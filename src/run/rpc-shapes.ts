/**
 * Shapes the thread's RPC (src/thread/api.ts) takes and answers that run/ defines, as types only:
 * a direct call's input and outcome, and the models in force; so the RPC interface, and
 * weft/client's declarations through it, reach none of run/'s code.
 * @module
 */

/** Input of a direct call. */
export interface DirectCallInput {
  toolName: string;
  input: unknown;
  /** Caller-chosen id; default `tool_<name>_<time><random>` (see `orderedId`). */
  callId?: string;
  /**
   * Whether a refused call (an unknown tool, an invalid input) is stored as a failed call record
   * before the error is thrown: a schedule's occurrence, which no caller waits on, leaves a trace.
   */
  recordRefusal?: boolean;
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
  /**
   * Only while `awaiting_approval`: the call's `argsHash` (as its record and `tool_call_approval_requested`
   * show it; keyed per thread, opaque), to pass to `POST .../approve` so the approval runs these arguments only.
   */
  argsHash?: string;
}

/** The model a side of a thread talks to, and what chose it. */
export interface ModelInForce {
  side: "a" | "b";
  spec: string;
  where: string;
}
