/**
 * The events on the wire: one discriminated union of `{ seq, type, data, at }` frames with
 * snake_case type names and typed payloads (docs/events.md lists them), and the model-step records they carry.
 * `src/protocol.ts` exports all of it too.
 * @module
 */
import type { CallSource, CallStatus, Message, ToolCallRequest } from "./records.js";
import type { ScheduleInfo } from "./schedules/info.js";

/** Tokens a model step used, as the provider reports them; absent counts are unknown. */
export interface TokenUsage {
  inputTokens?: number;
  outputTokens?: number;
  /** Input tokens served from the provider's prompt cache. */
  cachedInputTokens?: number;
  /** Output tokens the model spent reasoning (part of `outputTokens`). */
  reasoningTokens?: number;
  /** Input tokens written to the provider's prompt cache (Anthropic's `cache_creation_input_tokens`). */
  cacheWriteTokens?: number;
}

/** What one model step cost and how it ended. */
export interface ModelStepRecord {
  step: number;
  /** `"<provider>:<model id>"` or `scripted`. */
  model: string;
  /** The AI SDK's unified finish reason (`stop`, `tool-calls`, `length`, ...). */
  finishReason: string;
  usage: TokenUsage;
  /** Requests made for this step: 1, or more when transient provider failures were retried. */
  attempts: number;
  /** The failures that were retried, with how long weft waited, in order. */
  retries?: string[];
  /** The side that took the step, in a two-sided agent's turn. */
  side?: "a" | "b";
}

/**
 * Coded reasons a turn fails, beside its human-readable `error`:
 * - `restart_loop`: restarts of the thread cut the same model step again and again (a cut step is
 *   requested again once, never a third time), so the turn ends instead of asking the provider
 *   forever. The thread takes new messages as usual.
 * - `stream_cut`: the model's stream ended before its finish (a closed or reset connection, a
 *   malformed chunk) on every attempt the retry rules allow, with nothing of it acted on.
 * - `model_timeout`: the model step passed its idle deadline (no stream part for
 *   `WEFT_MODEL_IDLE_MS`) or its overall deadline (`WEFT_MODEL_STEP_MS`) on every attempt.
 * - `unsupported_content`: a user message carries a part the model's provider cannot take (a PDF
 *   by URL to an OpenAI-compatible server, a text file to Anthropic); no request was sent.
 * - `budget_exceeded` (on a `stopped` turn): a model request's reservation would have crossed a
 *   budget, so it was refused before any provider was called (the `budget_exceeded` event names
 *   the budget, its limit and what is used).
 * - `agent_not_found`: the thread's agent is no longer deployed (a deploy removed or renamed it),
 *   so the turn (one a restart cut, or a schedule's message) cannot run; nothing was sent.
 * - `invalid_config`: the deployment or the thread is configured wrong (a malformed `WEFT_BUDGETS`
 *   or `WEFT_PRICES`, a model whose binding or base URL is missing); `error` names the setting.
 */
export type TurnErrorCode = (typeof TURN_ERROR_CODES)[number];

/** Every {@link TurnErrorCode}, for schemas that check one. */
export const TURN_ERROR_CODES = ["restart_loop", "stream_cut", "model_timeout", "unsupported_content", "invalid_output", "budget_exceeded", "agent_not_found", "invalid_config"] as const;

/** Payloads of the built-in event types, keyed by `type` (snake_case, the names clients see on the wire). */
export interface EventPayloads {
  /** The thread was created, running the agent `agentId`; always the first frame (seq 1). */
  thread_created: { threadId: string; agentId: string };
  /** Tools the thread's agent defines but cannot offer (a dynamic definition that fails to compile), with why. */
  tools_unavailable: { tools: { name: string; reason: string }[] };
  /** A message was stored: a user's, the model's, a tool result, or one a tool injected. */
  message_created: { message: Message };
  /** `resumed` when a turn cut by a restart, or one that waited for a person, goes on. */
  turn_started: { turnId: string; resumed?: boolean };
  /** A model step ended: its text, the calls it asked for, its model, finish reason and token usage. */
  model_step: { turnId: string; step: number; text: string; toolCalls: ToolCallRequest[] } & Omit<ModelStepRecord, "step"> & {
      /** Token usage of the turn so far, this step included. */
      turnUsage: TokenUsage;
    };
  /**
   * Text of a model step while it streams, coalesced; the deltas of a step (since its last
   * `model_step_discarded`) concatenate to a prefix of its `model_step` text (a step that arrives
   * at once sends none).
   */
  text_delta: { turnId: string; step: number; delta: string };
  /**
   * Argument text of a call while it streams, coalesced; deltas concatenate to a prefix of the
   * call's final `arguments`. `preview` is the object parsed from the deltas sent so far
   * (finished members, and a string member still streaming, cut back to whole characters).
   */
  tool_call_delta: { turnId: string; step: number; callId: string; toolName: string; delta: string; preview?: Record<string, unknown> };
  /**
   * The attempt `attempt` of model step `step` was cut (a reset connection, a stream without its
   * finish, a deadline) and is asked again: every `text_delta` and `tool_call_delta` of that step
   * sent so far is void. The retried attempt streams from the start; none of the cut one is stored.
   */
  model_step_discarded: { turnId: string; step: number; attempt: number; reason: string };
  /** A call passed validation (and approval) and its tool starts; `input` is the parsed input, defaults applied. */
  tool_call_started: {
    callId: string;
    toolName: string;
    source: CallSource;
    input: unknown;
    /** Value of the tool's `progressArgument`, when it declares one. */
    progress?: string;
  };
  /** A call got its final result (or a person's decision ended it); `status` is the call record's. */
  tool_call_finished: {
    callId: string;
    toolName: string;
    source: CallSource;
    status: CallStatus;
    isError: boolean;
    result?: string;
    error?: string;
    durationMs: number;
    attempts: number;
    /** Code of a refusal, as on the call record. */
    errorCode?: string;
    /** Structured details of a refusal (`issues` with array paths), as on the call record. */
    errorDetails?: Record<string, unknown>;
    /** True when a dry-run thread answered without running the tool. */
    stubbed?: boolean;
    /** Path of the full result when `result` was capped for the model. */
    fullResultPath?: string;
    /** `unknown`: a write failed after it began; its effect may or may not have happened. */
    outcome?: "unknown";
    /** The provider ran the call itself (`executionMode: "provider"`); `result` is its answer as JSON. */
    providerExecuted?: boolean;
  };
  /** A call of a `needsApproval` tool waits for a person; approving names `argsHash`, the thread's keyed hash of the arguments it is bound to (opaque). */
  tool_call_approval_requested: { callId: string; toolName: string; input: unknown; argsHash: string };
  /**
   * A call waits for someone outside: a person to settle it (its outcome is uncertain: a write cut
   * by a restart, say), or, with `client: true`, the client to answer it (a tool with
   * `executionMode: "client"`: `POST /threads/:id/calls/:callId/result`), `input` being the
   * call's parsed input as `tool_call_started` gave it.
   */
  tool_call_parked: { callId: string; toolName: string; reason: string; client?: true; input?: unknown };
  /** The turn stops until the calls `callIds` are decided (by a person, or a client tool's call by the client's answer); it resumes by itself after. */
  turn_waiting: { turnId: string; callIds: string[] };
  /**
   * Older messages left the history window and were summarized: the summary covers every message
   * of the conversation up to `throughId` and heads later requests.
   */
  history_compacted: { turnId: string; throughId: number; messages: number; tokens: number; model: string };
  /** An agent called as a tool started (or resumed) its work in a child thread. */
  subagent_started: { callId: string; agentId: string; childThreadId: string };
  /** The child thread of an agent called as a tool answered; `status` is its turn's. */
  subagent_finished: { callId: string; agentId: string; childThreadId: string; status: string };
  /** The turn ended: `completed`, `stopped` (by a person, a stop tool or `stop()`) or `failed` with its `error`. */
  turn_finished: {
    turnId: string;
    status: "completed" | "stopped" | "failed";
    steps: number;
    error?: string;
    /** Why a failed turn failed, when weft names the reason with a code ({@link TurnErrorCode}). */
    errorCode?: TurnErrorCode;
    /** In a two-sided agent, the side whose stop tool, `stop()` or final answer ended the turn. */
    stoppedBy?: "a" | "b";
  };
  /**
   * A model request was refused before any provider was called: reserving its maximum would cross
   * `budget` (where it was set, scope, period), whose `limit` has `used` spent or reserved; in
   * tokens or in USD (`measure`). The turn ends `stopped` with `errorCode: "budget_exceeded"`.
   */
  budget_exceeded: {
    turnId: string;
    budget: { id: string; scope: "thread" | "user" | "agent"; period: "turn" | "day" | "month" | "lifetime"; tokens?: number; costUsd?: number; agent?: string };
    measure: "tokens" | "costUsd";
    limit: number;
    used: number;
    requested: number;
    /** A cost budget refused a model with no price (it would have counted as free). */
    unpriced?: true;
  };
  /** A schedule was made on the thread (src/schedules/). */
  schedule_created: { schedule: ScheduleInfo };
  /**
   * An occurrence was journaled and its work began: a tool call (`callId`) or a message for a turn.
   * `key` is `scheduleId:dueAt` (epoch ms); `manual` when a person asked for it at once
   * (`POST /schedules/files/:name/run`), its `dueAt` then the time of asking.
   */
  schedule_fired: { scheduleId: string; key: string; dueAt: string; callId?: string; manual?: true };
  /** Occurrences that will not run: `missed` by downtime beyond the `missed` policy, `overlap` with the previous one still running, or `queue_full` when `overlap: "queue"` has `MAX_QUEUED` (10) waiting already; `dueAt` is the first of them. */
  schedule_skipped: { scheduleId: string; reason: "missed" | "overlap" | "queue_full"; count: number; dueAt: string };
  /**
   * A schedule was cancelled: none of its occurrences fires after this. `errorCode` and `error`
   * when weft ended it because it could not fire: `tool_not_callable`, its tool now one only a model calls.
   */
  schedule_cancelled: { scheduleId: string; errorCode?: "tool_not_callable"; error?: string };
  /** A background run began: the call `callId` started agent `agentId` detached in child thread `childThreadId` and answered at once (src/background/). */
  run_started: { runId: string; agentId: string; childThreadId: string; callId: string };
  /** A background run ended and its completion was delivered to this thread, once, as a message: `completed`, `failed` or `stopped`. */
  run_finished: { runId: string; agentId: string; childThreadId: string; status: "completed" | "failed" | "stopped"; error?: string };
  /** Console output of `runCode` with `report: true`; `executionId` names the run. */
  code_log: { executionId: string; callId?: string; level: string; text: string };
  /** A `reportProgress(data)` call of code run with `report: true`. */
  code_progress: { executionId: string; callId?: string; data: unknown };
  /** The end of a `runCode` run with `report: true`. */
  code_finished: {
    executionId: string;
    callId?: string;
    status: "success" | "error" | "timeout" | "memory" | "cancelled";
    durationMs: number;
    error?: string;
  };
}

/** A built-in event type. */
export type BuiltinEventType = keyof EventPayloads;

/** A frame of a built-in event: `seq` is gap-free per thread and starts at 1; `at` is ISO-8601. */
export type BuiltinEventFrame = {
  [K in BuiltinEventType]: { seq: number; type: K; data: EventPayloads[K]; at: string };
}[BuiltinEventType];

/** A frame sent by a tool's `state.emit(event, data)`; `type` is the tool's event name. */
export interface CustomEventFrame {
  /** The frame's place in the thread's events, from 1, shared with weft's own events. */
  seq: number;
  /** The name the tool gave (`state.emit`'s first argument); never a built-in type. */
  type: string;
  /** What the tool passed, as JSON, with the thread's secrets redacted. */
  data: unknown;
  /** When it was emitted (ISO 8601). */
  at: string;
}

/** One frame on the WebSocket, `{ seq, type, data, at }`. */
export type EventFrame = BuiltinEventFrame | CustomEventFrame;

/** The built-in event type names; `state.emit` may not use these. */
export const BUILTIN_EVENT_TYPES: ReadonlySet<string> = new Set<BuiltinEventType>([
  "thread_created",
  "tools_unavailable",
  "message_created",
  "turn_started",
  "model_step",
  "text_delta",
  "tool_call_delta",
  "model_step_discarded",
  "tool_call_started",
  "tool_call_finished",
  "tool_call_approval_requested",
  "tool_call_parked",
  "turn_waiting",
  "history_compacted",
  "turn_finished",
  "budget_exceeded",
  "code_log",
  "code_progress",
  "code_finished",
  "subagent_started",
  "subagent_finished",
  "schedule_created",
  "schedule_fired",
  "schedule_skipped",
  "schedule_cancelled",
  "run_started",
  "run_finished",
]);
