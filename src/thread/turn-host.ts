/**
 * The thread as the turn loop sees it: history, tools, durable commits and dispatch.
 * @module
 */
import { offeredTools } from "../tools/catalog.js";
import type { ToolCallRequest } from "../protocol.js";
import { DEFAULT_MAX_STEPS, type TurnHost } from "../run/turn.js";
import type { ThreadEngine } from "./engine.js";

/**
 * Makes a step's call ids unique in the thread: an id already taken (by an earlier call or an
 * earlier call of the same step) becomes `<id>_2`, `<id>_3`, ...
 */
export function uniqueCallIds(calls: ToolCallRequest[], taken: (id: string) => boolean): ToolCallRequest[] {
  const seen = new Set<string>();
  return calls.map((call) => {
    let id = call.id;
    for (let n = 2; seen.has(id) || taken(id); n++) id = `${call.id}_${n}`;
    seen.add(id);
    return id === call.id ? call : { ...call, id };
  });
}

/** Creates the host for turn `turnId` of `engine`'s thread. */
export function createTurnHost(engine: ThreadEngine, turnId: string): TurnHost {
  const { store, agent } = engine;
  return {
    threadId: engine.meta.threadId,
    ...(engine.system() !== undefined ? { system: engine.system()! } : {}),
    maxSteps: agent.maxSteps ?? DEFAULT_MAX_STEPS,
    tools: () => offeredTools(engine.catalog),
    history: () => store.messages.all(),
    async commit(messages, pending) {
      engine.appendMessages(messages, () => store.turns.setPendingStep(turnId, pending));
      await engine.flush();
    },
    pendingStep: () => store.turns.pendingStep<ToolCallRequest>(turnId),
    dispatch: (execution, request) => engine.dispatchWithQueue(execution, request),
    emit: (type, data) => engine.emit(type, data),
    uniqueIds: (calls) => uniqueCallIds(calls, (id) => store.calls.get(id) !== undefined),
    onStep: (steps) => store.turns.step(turnId, steps.total),
  };
}
