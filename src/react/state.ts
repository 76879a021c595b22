/**
 * What `useThread` shows, folded from a thread's event frames: a pure reducer with no React in
 * it, so the same frames always give the same state, and a frame seen twice changes nothing.
 * @module
 */
import { type CallStatus, type EventFrame, type Message, isEmitted } from "../client/index.ts";

/** What the thread is doing, from its turn events: no turn, a turn running, or a turn waiting for a person. */
export type ThreadStatus = "idle" | "running" | "waiting";

/**
 * One tool call of the thread as its events tell it. `status` is the call record's
 * ({@link CallStatus}), or `requested` while the model has asked for it and it has not started
 * (its arguments may still be streaming).
 */
export interface ThreadCallState {
  /** The call's id, as the model (or a direct caller) gave it. */
  callId: string;
  /** The tool called. */
  toolName: string;
  /** Where the call is: `requested`, then the call record's status (`started`, `awaiting_approval`, `parked`, `succeeded`, `failed`, `denied`, `aborted`). */
  status: CallStatus | "requested";
  /** The turn that asked for it; absent for a call that did not come from a model step. */
  turnId?: string;
  /** The model step that asked for it. */
  step?: number;
  /** The argument text the model sent (streamed in pieces until the step ends). */
  arguments?: string;
  /** The parsed input, defaults applied, once the call passed validation (started or waiting for approval). */
  input?: unknown;
  /** The hash of `input` an approval is bound to (set while it waits for approval). */
  argsHash?: string;
  /** The result the model sees, once finished. */
  result?: string;
  /** The error text of a failed or denied call. */
  error?: string;
  /** True when the call ended as an error (a failure or a denial). */
  isError?: boolean;
  /** Why the call was parked, while it waits to be settled (or answered). */
  reason?: string;
  /** True for a client tool's call (`executionMode: "client"`): parked, it waits for this client's answer. */
  client?: true;
  /** How long the call ran, in milliseconds, once finished. */
  durationMs?: number;
}

/** The end of the last turn: its status, model steps, and the error of a failed one. */
export interface TurnEnd {
  /** The turn's id. */
  turnId: string;
  /** `completed`, `stopped` or `failed`. */
  status: "completed" | "stopped" | "failed";
  /** Model steps the turn took. */
  steps: number;
  /** Why a failed turn failed. */
  error?: string;
  /** The code of a failed turn's reason, where weft names one (`restart_loop`, `stream_cut`, `model_timeout`, `invalid_output`). */
  errorCode?: string;
}

/** The streaming text of the model step in progress. */
export interface Streaming {
  /** The turn the step belongs to. */
  turnId: string;
  /** The step's number in its turn. */
  step: number;
  /** Its `text_delta`s so far, joined. */
  text: string;
}

/** Everything the reducer keeps for one thread. */
export interface ThreadState {
  /** The thread these frames belong to. */
  threadId: string;
  /** The `seq` of the last frame folded in; a frame at or below it is ignored. */
  lastSeq: number;
  /** Stored messages by id, oldest first, silent ones included. */
  messages: Message[];
  /** The current model step's text while it streams; null between steps. */
  streaming: Streaming | null;
  /** Tool calls in the order they first appeared. */
  calls: ThreadCallState[];
  /** From the turn events. */
  status: ThreadStatus;
  /** The last turn that finished, or null. */
  lastTurn: TurnEnd | null;
  /** The `data` of the last event of each type the thread's tools emitted (`state.emit`), by type; no prototype. */
  emitted: Readonly<Record<string, unknown>>;
}

/** The state before any frame of `threadId`. */
export function initialState(threadId: string): ThreadState {
  return { threadId, lastSeq: 0, messages: [], streaming: null, calls: [], status: "idle", lastTurn: null, emitted: NO_EMITTED };
}

/** No event emitted yet: an object without a prototype, so a type such as `constructor` reads as absent until emitted. */
const NO_EMITTED: Readonly<Record<string, unknown>> = Object.freeze(Object.create(null));

/** What the reducer takes: one frame, or a reset to another thread. */
export type ThreadAction = { kind: "frame"; frame: EventFrame } | { kind: "reset"; threadId: string };

/** Replaces the call `callId` (adding it when new) with `patch` applied. */
function upsertCall(calls: ThreadCallState[], callId: string, patch: Partial<ThreadCallState> & { toolName: string }): ThreadCallState[] {
  const at = calls.findIndex((c) => c.callId === callId);
  if (at < 0) return [...calls, { callId, status: "requested", ...patch }];
  const next = calls.slice();
  next[at] = { ...calls[at]!, ...patch };
  return next;
}

/**
 * Folds one frame into the state. Frames at or below `lastSeq` change nothing (a replay after a
 * reconnect never duplicates a message); a tool's own event sets `emitted[type]` to its data, and
 * built-in types the screen does not show only advance `lastSeq`.
 */
export function reduce(state: ThreadState, action: ThreadAction): ThreadState {
  if (action.kind === "reset") return initialState(action.threadId);
  const frame = action.frame;
  if (frame.seq <= state.lastSeq) return state;
  const s: ThreadState = { ...state, lastSeq: frame.seq };
  // Narrowed by `type` through the builtin union; custom frames fall to default.
  const f = frame as EventFrame & { type: string; data: any };
  switch (f.type) {
    case "message_created": {
      const message = f.data.message as Message;
      if (s.messages.some((m) => m.id === message.id)) return s;
      const messages = [...s.messages, message];
      if (messages.length > 1 && messages[messages.length - 2]!.id > message.id) messages.sort((a, b) => a.id - b.id);
      return { ...s, messages };
    }
    case "turn_started":
      return { ...s, status: "running", streaming: null };
    case "text_delta": {
      const { turnId, step, delta } = f.data as { turnId: string; step: number; delta: string };
      const same = s.streaming && s.streaming.turnId === turnId && s.streaming.step === step;
      return { ...s, streaming: { turnId, step, text: (same ? s.streaming!.text : "") + delta } };
    }
    case "tool_call_delta": {
      const { turnId, step, callId, toolName, delta } = f.data as { turnId: string; step: number; callId: string; toolName: string; delta: string };
      const before = s.calls.find((c) => c.callId === callId);
      if (before && before.status !== "requested") return s;
      return { ...s, calls: upsertCall(s.calls, callId, { toolName, turnId, step, arguments: (before?.arguments ?? "") + delta }) };
    }
    case "model_step_discarded": {
      // Every delta of the cut attempt is void: its text, and the calls it was streaming.
      const { turnId, step } = f.data as { turnId: string; step: number };
      const streaming = s.streaming && s.streaming.turnId === turnId && s.streaming.step === step ? null : s.streaming;
      return { ...s, streaming, calls: s.calls.filter((c) => !(c.status === "requested" && c.turnId === turnId && c.step === step)) };
    }
    case "model_step": {
      const { turnId, step, toolCalls } = f.data as { turnId: string; step: number; toolCalls: { id: string; name: string; arguments: string }[] };
      let calls = s.calls;
      for (const call of toolCalls) {
        const before = calls.find((c) => c.callId === call.id);
        calls = upsertCall(calls, call.id, before && before.status !== "requested" ? { toolName: call.name } : { toolName: call.name, turnId, step, arguments: call.arguments });
      }
      const streaming = s.streaming && s.streaming.turnId === turnId && s.streaming.step === step ? null : s.streaming;
      return { ...s, streaming, calls };
    }
    case "tool_call_started": {
      const { callId, toolName, input } = f.data as { callId: string; toolName: string; input: unknown };
      return { ...s, calls: upsertCall(s.calls, callId, { toolName, input, status: "started" }) };
    }
    case "tool_call_approval_requested": {
      const { callId, toolName, input, argsHash } = f.data as { callId: string; toolName: string; input: unknown; argsHash: string };
      return { ...s, calls: upsertCall(s.calls, callId, { toolName, input, argsHash, status: "awaiting_approval" }) };
    }
    case "tool_call_parked": {
      const { callId, toolName, reason, client, input } = f.data as { callId: string; toolName: string; reason: string; client?: true; input?: unknown };
      return { ...s, calls: upsertCall(s.calls, callId, { toolName, reason, status: "parked", ...(client ? { client, input } : {}) }) };
    }
    case "tool_call_finished": {
      const d = f.data as { callId: string; toolName: string; status: CallStatus; isError: boolean; result?: string; error?: string; durationMs: number };
      const patch: Partial<ThreadCallState> & { toolName: string } = { toolName: d.toolName, status: d.status, isError: d.isError, durationMs: d.durationMs };
      if (d.result !== undefined) patch.result = d.result;
      if (d.error !== undefined) patch.error = d.error;
      return { ...s, calls: upsertCall(s.calls, d.callId, patch) };
    }
    case "turn_waiting":
      return { ...s, status: "waiting" };
    case "turn_finished": {
      const d = f.data as TurnEnd;
      const lastTurn: TurnEnd = { turnId: d.turnId, status: d.status, steps: d.steps };
      if (d.error !== undefined) lastTurn.error = d.error;
      if (d.errorCode !== undefined) lastTurn.errorCode = d.errorCode;
      return { ...s, status: "idle", streaming: null, lastTurn };
    }
    default:
      return isEmitted(f) ? { ...s, emitted: Object.freeze(Object.assign(Object.create(null), s.emitted, { [f.type]: f.data })) } : s;
  }
}
