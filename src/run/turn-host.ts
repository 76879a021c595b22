/**
 * What the thread provides to a turn (the turn loop in turn.ts and the model request in
 * model-request.ts both take it); everything about the run itself is on its `Execution`.
 * @module
 */
import type { EventPayloads, Message, ModelStepRecord, TokenUsage, ToolCallRequest } from "../protocol.js";
import type { ModelTool } from "../models/model.js";
import type { ModelSettings } from "../models/settings.js";
import type { CallOutcome, CallRequest } from "../calls/call.js";
import type { CompiledSchema } from "../tools/schema.js";
import type { Execution, StepCounts } from "./execution.js";
import type { NewTurnMessage } from "./messages.js";
import type { SideRules } from "./sides.js";
import type { StepDeadlines } from "./step-deadline.js";
import type { ThreadMeter } from "../usage/meter.js";

/** What the thread provides to a turn; everything about the run itself is on its `Execution`. */
export interface TurnHost {
  readonly threadId: string;
  readonly system?: string;
  /** Settings of the model requests (the current side's or the prompt's); absent: the provider's defaults. */
  readonly modelSettings?: ModelSettings;
  /** The schema the final answer must meet (the current side's or the prompt's `outputSchema`); absent: any text. */
  readonly finalAnswer?: CompiledSchema;
  readonly maxSteps: number;
  /** The sides taking turns and their stop rules; default one side a whose text answer ends the turn. */
  readonly sides?: readonly SideRules[];
  tools(): ModelTool[];
  /** Meters each model request: budget reservation before it, the usage ledger after (src/usage/); absent: not metered. */
  readonly meter?: ThreadMeter;
  /** The agent's answer when a budget refuses a request (its `budgetMessage`); absent: none. */
  readonly budgetMessage?: string;
  /** Readies what `tools()` reads that needs I/O (remote MCP servers' tool lists); never throws. */
  prepareTools?(): Promise<void>;
  /** Idle and overall deadlines of each model request; absent: the defaults (`WEFT_MODEL_IDLE_MS`, `WEFT_MODEL_STEP_MS`). */
  readonly modelDeadlines?: StepDeadlines;
  /** The `progressArgument` a tool declares, if any. */
  progressArgumentOf(toolName: string): string | undefined;
  /**
   * Announces a call whose `progressArgument` finished streaming: its `tool_call_started` event
   * and hook, before the call is validated or run.
   */
  announce(started: EventPayloads["tool_call_started"]): Promise<void>;
  /**
   * The history of the next request: a window within the model's token budget, read with keyset
   * queries (a summary of older messages at its head once they were compacted).
   */
  history(): Message[] | Promise<Message[]>;
  /**
   * The messages one model request sends, from one snapshot of `history()` (the history hook's
   * seam); absent: the snapshot as is.
   */
  prepareMessages?(snapshot: Message[]): Promise<Message[]>;
  /**
   * Appends messages in one transaction; `pending` sets (calls) or clears (null) the open step.
   * Resolves once durable when `pending` has calls (so a restart inside them resumes the step);
   * otherwise once stored: what follows leaves the object only through the output gate, after the
   * rows (src/tools/journal-order.ts).
   */
  commit(messages: NewTurnMessage[], pending: ToolCallRequest[] | null): Promise<void>;
  /**
   * Records the calls the provider ran itself during a step (call records and
   * `tool_call_finished`, like any call), once the step that made them is stored.
   */
  recordProviderCalls?(execution: Execution, calls: ToolCallRequest[]): Promise<void>;
  /**
   * Records, durably, that model step `step` is about to be prepared (history, compaction, hooks)
   * and requested; resolves with how many times it has been, counting tries a restart cut off.
   * Absent: no count is kept.
   */
  countRequest?(step: number): Promise<number>;
  /** The open step's calls, when a step was interrupted or is waiting. */
  pendingStep(): ToolCallRequest[] | null;
  /** Requests one call of `execution`, then any calls it queued; returns them in run order. */
  dispatch(execution: Execution, request: CallRequest): Promise<{ outcome: CallOutcome; queued: CallOutcome[] }>;
  /**
   * Where a call stands, read from the call journal (once no decision on it is under way); a call
   * of a stopped execution that waits for a person has taken its stop transition.
   */
  outcomeOf(execution: Execution, callId: string): Promise<CallOutcome>;
  emit<K extends keyof EventPayloads>(type: K, data: EventPayloads[K]): void;
  /** `text` with the thread's secrets replaced, as everything the thread stores or shows. */
  redact(text: string): string;
  /**
   * Called after each model step with the execution's step counts and the step's record, to
   * persist them; returns the turn's token usage so far (absent where it is not kept).
   */
  onStep(steps: StepCounts, record: ModelStepRecord): TokenUsage | void;
  /**
   * The step's calls with ids unique in the thread: a model may reuse an id (`call_0` every
   * turn, or twice in one step); a reused id gets a suffix, so it never inherits another result.
   */
  uniqueIds(calls: ToolCallRequest[]): ToolCallRequest[];
}
