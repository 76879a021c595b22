/**
 * The conversation a turn loop runs in (its `TurnHost`): one object serves a turn of the thread
 * and a nested prompt's run. What sets them apart is their place (`ConversationPlace`): the
 * history window, how messages are marked when committed, the system prompt and settings, and
 * whether a stored turn keeps the open step and step records. Messages are committed through the
 * create-message hooks (`RunWorld.createMessages`), durably, before any call of the step runs.
 * @module
 */
import type { EventPayloads, Message, ModelStepRecord, TokenUsage, ToolCallRequest } from "../protocol.js";
import type { ModelTool } from "../models/model.js";
import type { ModelSettings, TurnModelSettings } from "../models/settings.js";
import { sideSettings } from "./turn-settings.js";
import { type CallOutcome, type CallRequest, DIRECT_CALL_PREFIX } from "../calls/call.js";
import type { ToolCatalog } from "../tools/catalog.js";
import type { CompiledSchema } from "../tools/schema.js";
import { finalAnswerSchema, outputInstruction } from "./final-answer.js";
import type { Execution, StepCounts } from "./execution.js";
import { requestHistory } from "./history.js";
import { filterMessages, hasHook, toolHook } from "./hook-calls.js";
import type { NewTurnMessage } from "./messages.js";
import { modelDeadlinesOf } from "./model-deadlines.js";
import { type SideRules, historyFor } from "./sides.js";
import type { StepDeadlines } from "./step-deadline.js";
import type { TurnHost } from "./turn-host.js";
import { DEFAULT_MAX_STEPS } from "./turn.js";
import type { RunWorld } from "./world.js";
import type { ThreadMeter } from "../usage/meter.js";
import { addUsage } from "../usage/totals.js";
import { OCCURRENCE_CALL_PREFIX } from "../schedules/info.js";
import { wellFormed } from "../json-shape.js";
import { CHILD_ID } from "./state.js";

/** What sets one conversation apart from another: a turn of the thread, or a nested prompt's run. */
export interface ConversationPlace {
  /** The system prompt of the next request (a turn's follows its current side). */
  system(): string | undefined;
  /** The settings of the next request; undefined: the provider's defaults. */
  modelSettings(): ModelSettings | undefined;
  /** The schema the final answer must meet; undefined: any text. */
  finalAnswer(): CompiledSchema | undefined;
  /** Most model steps the loop takes. */
  readonly maxSteps: number;
  /** The sides taking turns and their stop rules (a turn's); absent: one side a. */
  readonly sides?: readonly SideRules[];
  /** The history window of the next request. */
  history(): Message[] | Promise<Message[]>;
  /** The open step's calls, when a step was interrupted or is waiting. */
  pendingStep(): ToolCallRequest[] | null;
  /** The messages as they are stored: marked with their side, or with their depth and the prompt call's tag. */
  mark(messages: NewTurnMessage[]): NewTurnMessage[];
  /** The stored turn this conversation is: it keeps the open step, request counts and step records. Absent for a nested run. */
  readonly turnId?: string;
  /** The prompt call whose nested run this is: the parent of every call the run makes. */
  readonly parentCallId?: string;
  /** The agent's answer when a budget refuses a request of this turn (its `budgetMessage`); absent: none. */
  readonly budgetMessage?: string;
}

/** The `TurnHost` of one execution in its thread's world, set apart by its place. */
export class Conversation implements TurnHost {
  readonly threadId: string;
  readonly maxSteps: number;
  readonly sides?: readonly SideRules[];
  readonly modelDeadlines: StepDeadlines;
  /** Present for a stored turn only: a nested run keeps no count. */
  readonly countRequest?: (step: number) => Promise<number>;
  /** Meters each model request (a nested run's under the turn that called it); absent: not metered. */
  readonly meter?: ThreadMeter;
  readonly budgetMessage?: string;

  constructor(
    private readonly world: RunWorld,
    private readonly execution: Execution,
    private readonly place: ConversationPlace,
  ) {
    this.threadId = world.meta.threadId;
    this.maxSteps = place.maxSteps;
    if (place.sides) this.sides = place.sides;
    this.modelDeadlines = modelDeadlinesOf(world.workerEnv);
    if (world.meter) this.meter = world.meter;
    if (place.budgetMessage !== undefined) this.budgetMessage = place.budgetMessage;
    const turnId = place.turnId;
    if (turnId !== undefined) {
      this.countRequest = async (step) => {
        const count = world.store.turns.countModelRequest(turnId, step);
        // Durable before the request leaves: a restart that cuts it must find it counted.
        await world.flush();
        return count;
      };
    }
  }

  /** The place's system prompt, with the output schema's instruction when one is declared. */
  get system(): string | undefined {
    const schema = this.place.finalAnswer();
    const system = this.place.system();
    if (!schema) return system;
    return system === undefined ? outputInstruction(schema) : `${system}\n\n${outputInstruction(schema)}`;
  }

  get finalAnswer(): CompiledSchema | undefined {
    return this.place.finalAnswer();
  }

  get modelSettings(): ModelSettings | undefined {
    return this.place.modelSettings();
  }

  tools(): ModelTool[] {
    return modelTools(this.world.catalogFor(this.execution));
  }

  /** Reads (or takes from their cache) the tool lists of the remote MCP servers the place offers. */
  async prepareTools(): Promise<void> {
    await this.world.callables.prepare?.(this.execution);
  }

  /** The catalog of the place the step runs (its side, or its prompt), read when the call streams. */
  progressArgumentOf(name: string): string | undefined {
    return progressArgumentOf(this.world.catalogFor(this.execution), name);
  }

  async announce(started: EventPayloads["tool_call_started"]): Promise<void> {
    this.world.emit("tool_call_started", started);
    if (hasHook(this.world, "tool_call_started")) await toolHook(this.world, this.execution, "tool_call_started", started);
  }

  history(): Message[] | Promise<Message[]> {
    return this.place.history();
  }

  prepareMessages(snapshot: Message[]): Promise<Message[]> {
    return filterMessages(this.world, this.execution, snapshot);
  }

  async commit(messages: NewTurnMessage[], pending: ToolCallRequest[] | null): Promise<void> {
    const turnId = this.place.turnId;
    const turns = this.world.store.turns;
    let step = this.unrecorded;
    this.unrecorded = undefined;
    // The step's record goes in the transaction of its message, in one write with the open step:
    // a step is recorded exactly when its message is stored.
    const keep = (id: string): void => {
      if (step) turns.recordModelStep(id, step.record, step.total, pending);
      else turns.setPendingStep(id, pending);
      step = undefined;
    };
    try {
      await this.world.createMessages(this.execution, this.place.mark(messages), turnId === undefined ? undefined : () => keep(turnId));
    } finally {
      // A create-message hook refused the message (the turn fails): the step's usage is kept all the same.
      if (step && turnId !== undefined) turns.recordModelStep(turnId, step.record, step.total);
    }
    // A step with calls is durable before they run: a restart cut inside them resumes the step
    // instead of asking the model again, which the step's request count would call a restart loop.
    // Other rows need no sync: what follows leaves the object only through the output gate, after
    // them (src/tools/journal-order.ts), and the next request's count is synced with them.
    if (pending !== null) await this.world.flush();
  }

  recordProviderCalls(execution: Execution, calls: ToolCallRequest[]): Promise<void> {
    return this.world.calls.recordProvided(execution, execution.flowId, calls);
  }

  pendingStep(): ToolCallRequest[] | null {
    return this.place.pendingStep();
  }

  dispatch(execution: Execution, request: CallRequest): Promise<{ outcome: CallOutcome; queued: CallOutcome[] }> {
    const parentCallId = this.place.parentCallId;
    return this.world.calls.requestWithQueue(execution, parentCallId === undefined ? request : { ...request, parentCallId });
  }

  outcomeOf(execution: Execution, callId: string): Promise<CallOutcome> {
    return this.world.calls.outcomeOf(execution, callId);
  }

  emit<K extends keyof EventPayloads>(type: K, data: EventPayloads[K]): void {
    this.world.emit(type, data);
  }

  redact(text: string): string {
    return this.world.redact(text);
  }

  /** Keeps the step's record for the commit of its message (see {@link commit}); returns the turn's usage with it. */
  onStep(steps: StepCounts, record: ModelStepRecord): TokenUsage | void {
    const turnId = this.place.turnId;
    if (turnId === undefined) return;
    this.unrecorded = { record, total: steps.total };
    return addUsage(this.world.store.turns.stepUsage(turnId), record.usage);
  }

  /** The model step whose record waits for its message's commit. */
  private unrecorded: { record: ModelStepRecord; total: number } | undefined;

  uniqueIds(calls: ToolCallRequest[]): ToolCallRequest[] {
    return uniqueCallIds(calls, (id) => this.world.store.callIdTaken(id));
  }
}

/**
 * The conversation of the turn `execution` runs in `world`'s thread. System prompt, tools and
 * the view of the history follow the execution's current side; with two sides every message the
 * turn writes is marked with its side. `settings` (a posted message's) go over side a's own.
 */
export function turnConversation(world: RunWorld, execution: Execution, settings?: TurnModelSettings): Conversation {
  const twoSided = world.sides.length > 1;
  return new Conversation(world, execution, {
    system: () => world.system(execution.currentSide),
    modelSettings: () => sideSettings(world.side(execution.currentSide).modelSettings, execution.currentSide, settings),
    finalAnswer: () => {
      const side = world.side(execution.currentSide);
      const owner = side.promptName !== undefined ? `prompt "${side.promptName}"` : `agent "${world.meta.agentId}"`;
      return side.outputSchema === undefined ? undefined : finalAnswerSchema(owner, side.outputSchema);
    },
    maxSteps: world.agent.maxSteps ?? DEFAULT_MAX_STEPS,
    sides: world.sides,
    history: async () => historyFor(execution.currentSide, twoSided, await requestHistory(world, execution)),
    pendingStep: () => world.store.turns.pendingStep<ToolCallRequest>(execution.flowId),
    mark: (messages) => (twoSided ? messages.map((m) => ({ ...m, side: execution.currentSide })) : messages),
    turnId: execution.flowId,
    ...(world.agent.budgetMessage !== undefined ? { budgetMessage: world.agent.budgetMessage } : {}),
  });
}

/**
 * Makes a step's call ids unique in the thread: an id already taken (by an earlier call or an
 * earlier call of the same step) becomes `<id>_2`, `<id>_3`, ... Ids weft makes itself are never
 * taken by a model first, or their call would find the model's call as its own (its result, and a
 * write never run): one in the schedules' reserved form (`sched_...`) or a direct call's (`tool_...`,
 * in which a keyed call's id can be computed) becomes `model_<id>`, and one in the form of a call's
 * child (`<id>.invoke<n>`, `<id>.queue<n>`) has that last `.` made `_`. An id that is no URL path
 * segment of its own (empty, `.` or `..`, which URLs remove as
 * dot segments, RFC 3986 section 5.2.4, in any spelling) becomes `model_<id>`: no route could
 * reach the call to decide it. A lone surrogate becomes U+FFFD, as storing the id would make it.
 */
export function uniqueCallIds(calls: ToolCallRequest[], taken: (id: string) => boolean): ToolCallRequest[] {
  const seen = new Set<string>();
  return calls.map((call) => {
    const sent = wellFormed(call.id);
    const dot = sent.lastIndexOf(".");
    const own = CHILD_ID.test(sent) ? `${sent.slice(0, dot)}_${sent.slice(dot + 1)}` : sent;
    const reserved = own.startsWith(OCCURRENCE_CALL_PREFIX) || own.startsWith(DIRECT_CALL_PREFIX);
    const base = reserved || own === "" || own === "." || own === ".." ? `model_${own}` : own;
    let id = base;
    for (let n = 2; seen.has(id) || taken(id); n++) id = `${base}_${n}`;
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

/** A tool's `progressArgument` in `catalog`; none for an unknown or broken tool (dispatch refuses those). */
function progressArgumentOf(catalog: ToolCatalog, name: string): string | undefined {
  try {
    return catalog.has(name) ? catalog.get(name).def.progressArgument : undefined;
  } catch {
    return undefined;
  }
}
