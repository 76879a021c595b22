/**
 * The model turn loop: ask the model for a step, dispatch the step's calls in order, append the
 * results, repeat until a step has no calls, the script ends, an `endsTurn` tool succeeds, the
 * thread is stopped, or `maxSteps` is reached. A step whose calls wait for a person pauses the
 * turn; resuming finishes that step first (its finished calls are not run again).
 * @module
 */
import { errorMessage } from "../errors.js";
import type { EventPayloads, Message, ToolCallRequest } from "../protocol.js";
import type { ModelTool } from "../models/model.js";
import { NOTHING_TO_PLAY } from "../models/scripted.js";
import type { CallOutcome, CallRequest } from "../tools/dispatch.js";
import { resultText } from "../tools/result.js";
import type { Execution, StepCounts } from "./execution.js";
import { readStep } from "./step.js";
import type { NewTurnMessage } from "./messages.js";

/** Default bound on model steps in one turn. */
export const DEFAULT_MAX_STEPS = 25;

/** What the thread provides to a turn; everything about the run itself is on its `Execution`. */
export interface TurnHost {
  readonly threadId: string;
  readonly system?: string;
  readonly maxSteps: number;
  tools(): ModelTool[];
  history(): Message[];
  /**
   * Appends messages in one transaction; `pending` sets (calls) or clears (null) the open step.
   * Resolves once that is durable, so a step's calls never run before the step is recorded.
   */
  commit(messages: NewTurnMessage[], pending: ToolCallRequest[] | null): Promise<void>;
  /** The open step's calls, when a step was interrupted or is waiting. */
  pendingStep(): ToolCallRequest[] | null;
  /** Dispatches one call of `execution`, then any calls it queued; returns them in run order. */
  dispatch(execution: Execution, request: CallRequest): Promise<{ outcome: CallOutcome; queued: CallOutcome[] }>;
  emit<K extends keyof EventPayloads>(type: K, data: EventPayloads[K]): void;
  /** Called after each model step with the execution's step counts, to persist them. */
  onStep(steps: StepCounts): void;
  /**
   * The step's calls with ids unique in the thread: a model may reuse an id (`call_0` every
   * turn, or twice in one step); a reused id gets a suffix, so it never inherits another result.
   */
  uniqueIds(calls: ToolCallRequest[]): ToolCallRequest[];
}

/** How a turn ended, or that it waits for a person. */
export interface TurnEnd {
  status: "completed" | "stopped" | "failed" | "waiting";
  steps: number;
  error?: string;
  /** Calls the turn waits on, when `waiting`. */
  waitingOn?: string[];
}

/**
 * Runs (or resumes) one turn. Never throws: a model failure ends the turn `failed` with a message,
 * and every call already dispatched keeps its recorded result.
 */
export async function runTurn(host: TurnHost, execution: Execution): Promise<TurnEnd> {
  const turnId = execution.flowId;
  const signal = execution.signal;
  let steps = execution.steps.total;
  try {
    const open = host.pendingStep();
    if (open) {
      const settled = await settleStep(host, execution, open);
      if (settled.waitingOn) return { status: "waiting", steps, waitingOn: settled.waitingOn };
      if (settled.endTurn) return { status: "completed", steps };
    }
    while (steps < host.maxSteps) {
      if (execution.stopped) return { status: "stopped", steps };
      const response = await readStep(
        execution.model.stream({
          threadId: host.threadId,
          turnId,
          step: steps + 1,
          ...(host.system !== undefined ? { system: host.system } : {}),
          messages: host.history(),
          tools: host.tools(),
          signal,
        }),
      );
      if (response.finishReason === "end" && response.toolCalls.length === 0 && response.text === "") {
        // A turn that played nothing at all says so, instead of ending silently with steps: 0.
        if (steps === 0) await host.commit([{ role: "system", content: NOTHING_TO_PLAY }], null);
        break;
      }
      steps = execution.countStep();
      host.onStep(execution.steps);
      // A call cut off mid-stream joins the step (so the model sees why it did not run), marked so it never runs.
      const cut = response.cutOff.map((c): ToolCallRequest => ({ id: c.id, name: c.name, arguments: c.partial, cutOff: true }));
      const calls = host.uniqueIds([...response.toolCalls, ...cut]);
      host.emit("model_step", { turnId, step: steps, text: response.text, toolCalls: calls });
      const assistant: NewTurnMessage = { role: "assistant", content: response.text };
      if (calls.length === 0) {
        await host.commit([assistant], null);
        return { status: signal.aborted ? "stopped" : "completed", steps };
      }
      assistant.toolCalls = calls;
      await host.commit([assistant], calls);
      const settled = await settleStep(host, execution, calls);
      if (settled.waitingOn) return { status: "waiting", steps, waitingOn: settled.waitingOn };
      if (settled.endTurn) return { status: "completed", steps };
    }
    if (execution.stopped) return { status: "stopped", steps };
    // The model still had calls in flight: say why the turn ended rather than call it complete.
    if (steps >= host.maxSteps) return { status: "stopped", steps, error: `reached the agent's maxSteps (${host.maxSteps}) model steps` };
    return { status: "completed", steps };
  } catch (e) {
    return { status: "failed", steps, error: errorMessage(e) };
  }
}

/**
 * Dispatches a step's calls in order. When all are final, their results join the history in
 * call order (one transaction, with the step closed); otherwise the turn waits.
 */
async function settleStep(host: TurnHost, execution: Execution, calls: ToolCallRequest[]): Promise<{ waitingOn?: string[]; endTurn?: boolean }> {
  const turnId = execution.flowId;
  const outcomes: CallOutcome[] = [];
  const queued: CallOutcome[] = [];
  for (const call of calls) {
    const done = await host.dispatch(execution, {
      callId: call.id,
      toolName: call.name,
      args: { text: call.arguments },
      source: "model",
      turnId,
      ...(call.cutOff ? { cutOff: true } : {}),
    });
    outcomes.push(done.outcome);
    queued.push(...done.queued);
  }
  const waiting = outcomes.filter((o) => !o.final).map((o) => o.callId);
  // A stopped turn does not wait: its step closes with the calls' current standing (a parked
  // call still waits for a person, but no turn resumes on it).
  if (waiting.length > 0 && !execution.signal.aborted) {
    host.emit("turn_waiting", { turnId, callIds: waiting });
    return { waitingOn: waiting };
  }
  const messages: NewTurnMessage[] = outcomes.map((o, i) => ({
    role: "tool",
    content: resultText(o.result),
    toolCallId: calls[i]!.id,
    name: calls[i]!.name,
  }));
  // A queued call's result joins the history as its own call and result, after the step's results.
  for (const q of queued.filter((o) => o.final)) {
    messages.push({ role: "assistant", content: "", toolCalls: [{ id: q.callId, name: q.toolName, arguments: q.argsText }], metadata: { queued: true } });
    messages.push({ role: "tool", content: resultText(q.result), toolCallId: q.callId, name: q.toolName });
  }
  await host.commit(messages, null);
  return { endTurn: outcomes.some((o) => o.endsTurn) };
}
