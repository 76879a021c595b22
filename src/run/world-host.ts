/**
 * The thread as the turn loop sees it: history, tools, durable commits and dispatch.
 * @module
 */
import type { ToolCallRequest } from "../protocol.js";
import type { TurnHost } from "./turn-host.js";
import { DEFAULT_MAX_STEPS } from "./turn.js";
import type { ModelTool } from "../models/model.js";
import type { Execution } from "./execution.js";
import { historyFor } from "./sides.js";
import type { ToolCatalog } from "../tools/catalog.js";
import type { RunWorld } from "./world.js";
import { requestHistory } from "./history.js";
import { filterMessages, hasHook, toolHook } from "./hook-calls.js";
import { modelDeadlinesOf } from "./model-deadlines.js";

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

/**
 * Every tool of a catalog as the model is told about it; a tool with `executionMode: "provider"`
 * carries the provider-defined tool it stands for (see {@link providerToolId}).
 */
export function modelTools(catalog: ToolCatalog): ModelTool[] {
  return catalog.list().map((t) => {
    const def = catalog.definition(t.name);
    const id = def.executionMode === "provider" ? providerToolId(t.name, def.executionProvider) : undefined;
    return { name: t.name, description: t.description, inputSchema: t.inputSchema, ...(id ? { executionMode: "provider" as const, providerTool: { id } } : {}) };
  });
}

/**
 * The provider-defined tool a provider-executed tool stands for: `executionProvider` names the
 * provider (`"openai"`: the tool `openai.<tool name>`) or the tool itself
 * (`"anthropic.web_search_20250305"`).
 */
export function providerToolId(toolName: string, executionProvider: string | undefined): `${string}.${string}` | undefined {
  if (!executionProvider) return undefined;
  return (executionProvider.includes(".") ? executionProvider : `${executionProvider}.${toolName}`) as `${string}.${string}`;
}

/**
 * Creates the host for the turn `execution` runs in `engine`'s thread. System prompt, tools and
 * the view of the history follow the execution's current side; with two sides every message the
 * turn writes is marked with its side.
 */
export function createTurnHost(engine: RunWorld, execution: Execution): TurnHost {
  const { store, agent } = engine;
  const turnId = execution.flowId;
  const twoSided = engine.sides.length > 1;
  return {
    ...conversationOf(engine, execution),
    get system() {
      return engine.system(execution.currentSide);
    },
    get modelSettings() {
      return engine.side(execution.currentSide).modelSettings;
    },
    maxSteps: agent.maxSteps ?? DEFAULT_MAX_STEPS,
    ...(agent.budgetMessage !== undefined ? { budgetMessage: agent.budgetMessage } : {}),
    sides: engine.sides,
    history: async () => historyFor(execution.currentSide, twoSided, await requestHistory(engine, execution)),
    async commit(messages, pending) {
      const marked = twoSided ? messages.map((m) => ({ ...m, side: execution.currentSide })) : messages;
      await engine.createMessages(execution, marked, () => store.turns.setPendingStep(turnId, pending));
      await engine.flush();
    },
    recordProviderCalls: (execution, calls) => engine.calls.recordProvided(execution, turnId, calls),
    pendingStep: () => store.turns.pendingStep<ToolCallRequest>(turnId),
    async countRequest(step) {
      const count = store.turns.countModelRequest(turnId, step);
      // Durable before the request leaves: a restart that cuts it must find it counted.
      await engine.flush();
      return count;
    },
    dispatch: (execution, request) => engine.calls.requestWithQueue(execution, request),
    onStep: (steps, record) => {
      store.turns.step(turnId, steps.total);
      return store.turns.recordModelStep(turnId, record);
    },
  };
}

/**
 * What a turn and a nested prompt's run share of their `TurnHost`: the thread, the tools and
 * deadlines of the place `execution` runs, announcing, the history hook, outcomes, events and call
 * ids. Each adds its own system prompt, history, commits and open step.
 */
export function conversationOf(
  engine: RunWorld,
  execution: Execution,
): Pick<TurnHost, "threadId" | "meter" | "tools" | "modelDeadlines" | "progressArgumentOf" | "announce" | "prepareMessages" | "outcomeOf" | "emit" | "uniqueIds"> {
  return {
    threadId: engine.meta.threadId,
    ...(engine.meter ? { meter: engine.meter } : {}),
    tools: () => modelTools(engine.catalogFor(execution)),
    modelDeadlines: modelDeadlinesOf(engine.workerEnv),
    ...announcing(engine, execution),
    prepareMessages: (snapshot) => filterMessages(engine, execution, snapshot),
    outcomeOf: (execution, callId) => engine.calls.outcomeOf(execution, callId),
    emit: (type, data) => engine.emit(type, data),
    uniqueIds: (calls) => uniqueCallIds(calls, (id) => engine.store.callIdTaken(id)),
  };
}

/** How a turn (or a nested prompt's loop) announces calls while their arguments stream. */
export function announcing(engine: RunWorld, execution: Execution): Pick<TurnHost, "progressArgumentOf" | "announce"> {
  return {
    // The catalog of the place the step runs (its side, or its prompt), read when the call streams.
    progressArgumentOf: (name) => progressArgumentOf(engine.catalogFor(execution), name),
    async announce(started) {
      engine.emit("tool_call_started", started);
      if (hasHook(engine, "tool_call_started")) await toolHook(engine, execution, "tool_call_started", started);
    },
  };
}

/** A tool's `progressArgument` in `catalog`; none for an unknown or broken tool (dispatch refuses those). */
function progressArgumentOf(catalog: ToolCatalog, name: string): string | undefined {
  try {
    return catalog.has(name) ? catalog.get(name).def.progressArgument : undefined;
  } catch {
    return undefined;
  }
}
