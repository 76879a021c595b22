/**
 * The model turn loop: ask the model for a step, dispatch the step's calls in order, append the
 * results, repeat until a step has no calls, the script ends, an `endsTurn` tool succeeds, the
 * thread is stopped, or `maxSteps` is reached. A step whose calls wait for a person pauses the
 * turn; resuming finishes that step first (its finished calls are not run again). Asking the
 * model for a step (retries, fallbacks) is model-request.ts.
 * @module
 */
import { errorMessage, isWeftError } from "../errors.js";
import type { ModelStepRecord, ToolCallRequest, TurnErrorCode } from "../protocol.js";
import type { Model } from "../models/model.js";
import { NOTHING_TO_PLAY } from "../models/scripted.js";
import { fromStrictArguments } from "../models/strict.js";
import type { CallOutcome } from "../calls/call.js";
import { errorMark, resultText } from "../calls/result.js";
import type { Execution } from "./execution.js";
import { checkFinalAnswer, retryInstruction } from "./final-answer.js";
import { requestStep } from "./model-request.js";
import { BudgetExceeded } from "../usage/meter.js";
import type { ProviderCall } from "./step.js";
import { type NewTurnMessage, queuedCallEntries } from "./messages.js";
import { ONE_SIDE, checkStopTool, handOver, sideForStep } from "./sides.js";
import type { TurnHost } from "./turn-host.js";

/** Default bound on model steps in one turn. */
export const DEFAULT_MAX_STEPS = 25;

/** How a turn ended, or that it waits for a person. */
export interface TurnEnd {
  status: "completed" | "stopped" | "failed" | "waiting";
  steps: number;
  error?: string;
  /** The coded reason of a `failed` end, when weft names one. */
  errorCode?: TurnErrorCode;
  /** Calls the turn waits on, when `waiting`. */
  waitingOn?: string[];
  /** The side whose stop tool, `stop()` or final answer ended a two-sided turn. */
  stoppedBy?: "a" | "b";
}

/** `stoppedBy` of an execution that has one, spread into a {@link TurnEnd}. */
const by = (execution: Execution): { stoppedBy?: "a" | "b" } => (execution.stoppedBy ? { stoppedBy: execution.stoppedBy } : {});

/**
 * Runs (or resumes) one turn. Never throws: a model failure ends the turn `failed` with a message,
 * and every call already dispatched keeps its recorded result.
 */
export async function runTurn(host: TurnHost, execution: Execution): Promise<TurnEnd> {
  const turnId = execution.flowId;
  const signal = execution.signal;
  let steps = execution.steps.total;
  let answerRetried = false;
  try {
    const open = host.pendingStep();
    if (open) {
      const settled = await settleStep(host, execution, open);
      if (settled.waitingOn) return { status: "waiting", steps, waitingOn: settled.waitingOn };
      if (settled.endTurn) return { status: "completed", steps };
    }
    const sides = host.sides ?? ONE_SIDE;
    while (steps < host.maxSteps) {
      if (execution.stopped) return { status: "stopped", steps, ...by(execution) };
      const sideEnd = sideForStep(execution, sides);
      if (sideEnd) return { status: "stopped", steps, error: sideEnd };
      // A step cut by a restart is tried again once; cut again, the turn ends rather than loop.
      // Counted before its history is read: compaction and history hooks are part of the step.
      const requests = (await host.countRequest?.(steps + 1)) ?? 1;
      if (requests > MAX_STEP_REQUESTS) {
        const error = `model step ${steps + 1} was cut by a restart ${requests - 1} times; it is not requested again`;
        return { status: "failed", steps, error, errorCode: "restart_loop" };
      }
      // Asked before by an instance a restart ended: what it streamed of the step is void, as for a cut attempt.
      if (requests > 1) host.emit("model_step_discarded", { turnId, step: steps + 1, attempt: requests - 1, reason: "the thread restarted during this step" });
      // One snapshot per request: what is injected while it is prepared enters the next request.
      const snapshot = await host.history();
      const messages = host.prepareMessages ? await host.prepareMessages(snapshot) : snapshot;
      const { response, model, announced, attempts, retries } = await requestStep(host, execution, steps + 1, messages);
      if (response.finishReason === "end" && response.toolCalls.length === 0 && response.text === "") {
        // A turn that played nothing at all says so, instead of ending silently with steps: 0.
        if (steps === 0) await host.commit([{ role: "system", content: NOTHING_TO_PLAY }], null);
        break;
      }
      steps = execution.countStep();
      const record: ModelStepRecord = {
        step: steps,
        model: model.id,
        finishReason: response.finishReason,
        usage: response.usage,
        attempts,
        ...(retries.length > 0 ? { retries } : {}),
        ...(sides.length > 1 ? { side: execution.currentSide } : {}),
      };
      const turnUsage = host.onStep(execution.steps, record) ?? response.usage;
      // A call cut off mid-stream joins the step (so the model sees why it did not run), marked so it never runs.
      const cut = response.cutOff.map((c): ToolCallRequest => ({ id: c.id, name: c.name, arguments: c.partial, cutOff: c.reason ?? true }));
      const made = wellFormedCalls([...response.toolCalls, ...cut], turnId, steps);
      // What the provider ran itself is stored with the step and never dispatched. Its ids are held to
      // the model's rules with them (an endpoint could name one as an id weft makes, a keyed direct call's).
      const ran = response.providerCalls.map((c) => providerExecuted(c, model.id));
      const ids = host.uniqueIds([...ran, ...made]);
      const provided = ids.slice(0, ran.length);
      // Announced under the id it is stored with, and no other call of the step sent that id: else it is announced when it runs.
      const sent = made.map((c) => c.id);
      const once = (id: string) => sent.indexOf(id) === sent.lastIndexOf(id);
      const calls = ids.slice(ran.length).map((c, i) => (once(sent[i]!) && announced.announcedAs(sent[i]!) === c.id ? { ...c, announced: true } : c));
      host.emit("model_step", { turnId, text: response.text, toolCalls: [...provided, ...calls], ...record, turnUsage });
      const assistant: NewTurnMessage = { role: "assistant", content: response.text, ...(provided.length > 0 ? { toolCalls: provided } : {}) };
      if (calls.length === 0) {
        await host.commit([assistant], null);
        await host.recordProviderCalls?.(execution, provided);
        // Cut after the provider ran a call (so not asked again): the answer is not whole, and says so.
        if (!signal.aborted && (response.finishReason === "interrupted" || response.finishReason === "error")) {
          return { status: "failed", steps, error: `model ${model.id}: the model's stream was cut before its finish, after the provider ran a call`, errorCode: "stream_cut" };
        }
        const problem = !signal.aborted && host.finalAnswer ? checkFinalAnswer(host.finalAnswer, response.text) : null;
        if (problem) {
          // Sent back once with what was wrong; refused again, the run fails naming the path.
          if (answerRetried || steps >= host.maxSteps) {
            return { status: "failed", steps, error: `the final answer does not match the output schema: at ${problem.path}: ${problem.message}`, errorCode: "invalid_output" };
          }
          answerRetried = true;
          await host.commit([{ role: "user", content: retryInstruction(problem), silent: true }], null);
          continue;
        }
        if (!signal.aborted && handOver(execution, sides)) continue;
        return { status: signal.aborted ? "stopped" : "completed", steps, ...by(execution) };
      }
      assistant.toolCalls = [...provided, ...calls];
      await host.commit([assistant], calls);
      await host.recordProviderCalls?.(execution, provided);
      const settled = await settleStep(host, execution, calls, model);
      if (settled.waitingOn) return { status: "waiting", steps, waitingOn: settled.waitingOn };
      if (settled.endTurn) return { status: "completed", steps };
    }
    if (execution.stopped) return { status: "stopped", steps, ...by(execution) };
    // The model still had calls in flight: say why the turn ended rather than call it complete.
    if (steps >= host.maxSteps) return { status: "stopped", steps, error: `reached the agent's maxSteps (${host.maxSteps}) model steps` };
    return { status: "completed", steps };
  } catch (e) {
    // Whatever a stop made throw (the model's stream, above all) is the stop, never a model failure.
    if (signal.aborted) return { status: "stopped", steps, ...by(execution) };
    // A budget refused the next request before any provider was called.
    if (e instanceof BudgetExceeded) {
      if (host.budgetMessage !== undefined) await host.commit([{ role: "assistant", content: host.budgetMessage }], null).catch(() => undefined);
      return { status: "stopped", steps, error: e.message, errorCode: "budget_exceeded" };
    }
    return failedTurn(steps, e);
  }
}

/** A call the provider of model `modelId` ran, as the history stores it: marked, with the provider's result. */
function providerExecuted(call: ProviderCall, modelId: string): ToolCallRequest {
  const { result, isError, ...rest } = call;
  return { ...rest, providerExecuted: true, providerResult: { value: result ?? null, ...(isError ? { isError: true } : {}), provider: providerOf(modelId) } };
}

/** The provider of a model id (`openai` of `openai:gpt-4.1` or `openai.responses:gpt-4.1`). */
export function providerOf(modelId: string): string {
  return modelId.split(":")[0]!.split(".")[0]!;
}

/**
 * A model step's calls as the history stores them, whatever an adapter produced: `arguments` is
 * text (absent means no arguments; a structured value becomes its JSON), `id` and `name` strings.
 */
export function wellFormedCalls(calls: readonly unknown[] | undefined, turnId: string, step: number): ToolCallRequest[] {
  return (calls ?? []).map((raw, i) => {
    const call = (raw ?? {}) as Partial<Record<keyof ToolCallRequest, unknown>>;
    const args = call.arguments;
    let text: string;
    if (typeof args === "string") text = args;
    else if (args === undefined || args === null) text = "";
    else {
      try {
        text = JSON.stringify(args) ?? "";
      } catch {
        text = String(args);
      }
    }
    const id = typeof call.id === "string" && call.id !== "" ? call.id : `call_${turnId}_${step}_${i}`;
    return { ...(call as ToolCallRequest), id, name: typeof call.name === "string" ? call.name : String(call.name ?? ""), arguments: text };
  });
}

/** Requests of one model step across restarts: the first, and one more after a restart cut it. */
export const MAX_STEP_REQUESTS = 2;

/**
 * Dispatches a step's calls in order. When all are final, their results join the history in
 * call order (one transaction, with the step closed); otherwise the turn waits.
 */
async function settleStep(
  host: TurnHost,
  execution: Execution,
  calls: ToolCallRequest[],
  model: Model = execution.model,
): Promise<{ waitingOn?: string[]; endTurn?: boolean }> {
  const turnId = execution.flowId;
  // A step resumed after a restart has no remote MCP tool lists yet (its model request listed them).
  if (calls.length > 0) await host.prepareTools?.();
  const outcomes: CallOutcome[] = [];
  const queued: CallOutcome[] = [];
  const schemas = model.strictTools ? new Map(host.tools().map((t) => [t.name, t.inputSchema])) : null;
  for (const call of calls) {
    // A strict schema made optional keys nullable: a null the model sent for one means "absent".
    const schema = schemas?.get(call.name);
    const done = await host.dispatch(execution, {
      callId: call.id,
      toolName: call.name,
      args: { text: schema ? fromStrictArguments(schema, call.arguments) : call.arguments },
      source: "model",
      turnId,
      ...(call.cutOff ? { cutOff: call.cutOff } : {}),
      ...(call.oversized !== undefined ? { oversized: call.oversized } : {}),
      ...(call.announced ? { announced: true } : {}),
    });
    outcomes.push(done.outcome);
    queued.push(...done.queued);
  }
  // A call that waited may have been decided while its siblings ran: read where each stands now.
  for (const [i, o] of outcomes.entries()) {
    if (!o.final) outcomes[i] = await host.outcomeOf(execution, o.callId);
  }
  checkStopTool(execution, host.sides ?? ONE_SIDE, outcomes);
  // A queued call waiting for a person keeps the turn waiting, so its decision reaches the model.
  const waiting = [...outcomes, ...queued].filter((o) => !o.final).map((o) => o.callId);
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
    ...errorMark(o.result),
  }));
  // A queued call's result joins the history as its own call and result, after the step's results.
  for (const q of queued.filter((o) => o.final)) messages.push(...queuedCallEntries(q));
  await host.commit(messages, null);
  return { endTurn: outcomes.some((o) => o.endsTurn) };
}

/** Failures a failed turn names with their code: what an operator acts on differs for each. */
const NAMED_FAILURES: ReadonlySet<string> = new Set<TurnErrorCode>(["stream_cut", "model_timeout", "unsupported_content", "agent_not_found", "invalid_config"]);

/**
 * A turn that failed on `e`: its message, and its code when it is one a reader acts on (a cut
 * stream or a deadline past the retries, content the provider cannot take, an agent no longer
 * deployed, a configuration mistake such as a bad `WEFT_BUDGETS` or a missing binding).
 */
export function failedTurn(steps: number, e: unknown): TurnEnd {
  const code = isWeftError(e) && NAMED_FAILURES.has(e.code) ? (e.code as TurnErrorCode) : undefined;
  return { status: "failed", steps, error: errorMessage(e), ...(code ? { errorCode: code } : {}) };
}
