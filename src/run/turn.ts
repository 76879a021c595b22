/**
 * The model turn loop: ask the model for a step, dispatch the step's calls in order, append the
 * results, repeat until a step has no calls, the script ends, an `endsTurn` tool succeeds, the
 * thread is stopped, or `maxSteps` is reached.
 * @module
 */
import { errorMessage } from "../errors.js";
import type { EventPayloads, Message } from "../protocol.js";
import type { Model, ModelTool } from "../models/model.js";
import type { CallOutcome, CallRequest } from "../tools/dispatch.js";
import { resultText } from "../tools/result.js";
import type { NewTurnMessage } from "./messages.js";

/** Default bound on model steps in one turn. */
export const DEFAULT_MAX_STEPS = 25;

/** What the thread provides to a turn. */
export interface TurnHost {
  readonly threadId: string;
  readonly turnId: string;
  readonly model: Model;
  readonly system?: string;
  readonly maxSteps: number;
  readonly signal: AbortSignal;
  tools(): ModelTool[];
  history(): Message[];
  append(message: NewTurnMessage): Message;
  /** Dispatches one call, then any calls it queued; returns them in run order. */
  dispatch(request: CallRequest): Promise<{ outcome: CallOutcome; queued: CallOutcome[] }>;
  emit<K extends keyof EventPayloads>(type: K, data: EventPayloads[K]): void;
  /** Called after each step with the step count, for `ExecutionState` and the turn record. */
  onStep(steps: number): void;
}

/** How a turn ended. */
export interface TurnEnd {
  status: "completed" | "stopped" | "failed";
  steps: number;
  error?: string;
}

/**
 * Runs one turn to its end. Never throws: a model failure ends the turn `failed` with a message,
 * and every call already dispatched keeps its recorded result.
 */
export async function runTurn(host: TurnHost): Promise<TurnEnd> {
  let steps = 0;
  try {
    while (steps < host.maxSteps) {
      if (host.signal.aborted) return { status: "stopped", steps };
      steps += 1;
      const response = await host.model.step({
        threadId: host.threadId,
        turnId: host.turnId,
        step: steps,
        ...(host.system !== undefined ? { system: host.system } : {}),
        get messages() {
          return host.history();
        },
        tools: host.tools(),
        signal: host.signal,
      });
      host.onStep(steps);
      if (response.finish === "end" && response.toolCalls.length === 0 && response.text === "") {
        steps -= 1;
        host.onStep(steps);
        break;
      }
      host.emit("model_step", { turnId: host.turnId, step: steps, text: response.text, toolCalls: response.toolCalls });
      const assistant: NewTurnMessage = { role: "assistant", content: response.text };
      if (response.toolCalls.length > 0) assistant.toolCalls = response.toolCalls;
      host.append(assistant);
      if (response.toolCalls.length === 0) break;

      let endTurn = false;
      const queuedOutcomes: CallOutcome[] = [];
      for (const call of response.toolCalls) {
        // Every requested call gets a result message, even after a stop, so history stays valid.
        const { outcome, queued } = await host.dispatch({
          callId: call.id,
          toolName: call.name,
          args: { text: call.arguments },
          source: "model",
          turnId: host.turnId,
        });
        host.append({ role: "tool", content: resultText(outcome.result), toolCallId: call.id, name: call.name });
        queuedOutcomes.push(...queued);
        if (outcome.endsTurn) endTurn = true;
      }
      for (const q of queuedOutcomes) appendQueued(host, q);
      if (endTurn) break;
    }
    return { status: host.signal.aborted ? "stopped" : "completed", steps };
  } catch (e) {
    return { status: "failed", steps, error: errorMessage(e) };
  }
}

/** A queued call's result joins the history as its own assistant call and tool result. */
function appendQueued(host: TurnHost, outcome: CallOutcome): void {
  host.append({
    role: "assistant",
    content: "",
    toolCalls: [{ id: outcome.callId, name: outcome.toolName, arguments: outcome.argsText }],
    metadata: { queued: true },
  });
  host.append({ role: "tool", content: resultText(outcome.result), toolCallId: outcome.callId, name: outcome.toolName });
}
