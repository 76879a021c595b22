/**
 * `defineAgent`: what a thread runs. One side (side a), or two sides that take turns (a support
 * agent and a simulated customer), each running a prompt; stop conditions; environment defaults;
 * and, with `exposeAsTool`, a tool that runs the agent in a child thread.
 * @module
 */
import { WeftError, quotedValue } from "../errors.js";
import type { ScheduleDefinition } from "../schedules/define.js";
import type { ScriptStep } from "../models/model.js";
import { type ModelSettings, type TurnSettingName, checkModelSettings, checkTurnSettingNames } from "../models/settings.js";
import type { AnyToolDefinition, JsonSchemaObject, SchemaInput, ToolArgs } from "../tools/types.js";
import { finalAnswerSchema } from "./final-answer.js";
import { type HistoryOptions, checkHistoryOptions } from "./compaction.js";
import { HOOK_NAMES, type HookDefinition, type HookName, type HookSignatures } from "./hooks.js";
import type { McpServerDefinition } from "../remote/define.js";
import { type Budget, checkBudgets } from "../usage/budgets.js";
import {
  type EnvDefault,
  MODEL_NAME_PATTERN,
  type PromptDefinition,
  type SystemPrompt,
  checkEnvDefaults,
  checkModelList,
  checkNameList,
  checkSteps,
  configFailure,
} from "./prompt.js";

/** An env default of an agent or prompt: a plain string (a secret) or `{ value, type }`. */
export type { EnvDefault } from "./prompt.js";

/** A side of an agent: the prompt it runs and when it stops. */
export interface AgentSide {
  /** The prompt this side runs: the file name of `agents/prompts/<name>.ts`. */
  prompt: string;
  /** Upper bound on this side's model steps in one execution. */
  maxSteps?: number;
  /** A tool of this side's prompt whose successful call stops the execution (`stoppedBy` is this side). */
  stopTool?: string;
  /**
   * A text answer of this side (a step with no tool calls) ends the execution. Default: true for
   * side a of a one-sided agent; false with two sides, where a text answer hands the turn over.
   */
  endsTurn?: boolean;
}

/** Options of {@link defineAgent}. */
export interface DefineAgentOptions {
  /** What the agent is for; the tool description another agent sees when it may call this one (unless `toolDescription` is set). */
  description?: string;
  /** Side a: a prompt name, or the side with its stop conditions. Absent: the inline fields below. */
  sideA?: string | AgentSide;
  /** Side b: when present, the sides alternate, each seeing the other's answers as user messages. */
  sideB?: string | AgentSide;
  /** Inline side a, for a one-sided agent without a prompt file: its system prompt. */
  system?: SystemPrompt;
  /** Inline side a: names it offers; default every tool in `agents/tools/`. */
  tools?: readonly string[];
  /** Inline side a: model as `"<provider>:<model id>"`. */
  model?: string;
  /**
   * Inline side a: models tried in order, each as `"<provider>:<model id>"`, when a model step
   * fails with a provider error after its retries (a 429 or 5xx that persists, a network failure,
   * or an error answer).
   */
  fallbackModels?: readonly string[];
  /** Inline side a: settings of its model requests ({@link ModelSettings}). */
  modelSettings?: ModelSettings;
  /**
   * Which model settings a posted message may give its own turn (`POST /threads/:id/messages`
   * `modelSettings`, applied to side a's requests of that turn over side a's own settings). Default
   * none: a message naming a setting not listed is refused (`invalid_request`). A message may lower
   * side a's `maxOutputTokens`, never raise it; provider options are never a message's to give.
   * @example turnSettings: ["temperature", "maxOutputTokens", "reasoningEffort"]
   */
  turnSettings?: readonly TurnSettingName[];
  /**
   * Inline side a: a schema its final answer must meet (a Zod schema or a JSON Schema). The model
   * is told the schema; an answer that is not JSON it accepts is sent back once with the problem,
   * and refused again the turn fails with `invalid_output` naming the path.
   */
  outputSchema?: SchemaInput;
  /**
   * How the history each model request sends is bounded: a token window (default half the model's
   * context) with older messages summarized once into a stored summary at its head.
   */
  history?: HistoryOptions;
  /**
   * Extra tools built from the thread's creation `arguments` (checked on first use, like any
   * dynamically defined tool). Used by fixture agents whose tools are data, such as BFCL cases.
   */
  toolsFromArguments?: (args: Record<string, unknown>) => Record<string, AnyToolDefinition>;
  /**
   * Hooks of this agent's threads only, by hook name, beside the project-wide files of
   * `agents/hooks/`: both run, the project's first; a transforming hook (`before_create_message`,
   * `filter_messages`) gets what the one before it returned. Signatures as in {@link HookSignatures}.
   */
  hooks?: { [N in HookName]?: HookSignatures[N] };
  /** Environment defaults, resolved after the thread's own values and before the prompt's. */
  env?: Record<string, EnvDefault>;
  /** Steps the scripted model plays in a new thread before any posted script (both sides read it in turn). */
  script?: ScriptStep[];
  /** Upper bound on model steps per execution, both sides together; default 25. */
  maxSteps?: number;
  /**
   * Ceilings on tokens and cost of this agent's threads (src/usage/budgets.ts): a `scope: "agent"`
   * budget counts all of a user's threads of this agent. Every model request reserves its maximum
   * against each first; one that would cross a budget is refused and the turn ends `stopped`.
   */
  budgets?: readonly Budget[];
  /**
   * What the agent answers when a budget refuses its next model request: stored as its assistant
   * message before the turn ends `stopped` (`errorCode: "budget_exceeded"`). Absent: no message.
   */
  budgetMessage?: string;
  /** Offer this agent as a tool named after its file; a call runs it in a child thread. */
  exposeAsTool?: boolean;
  /**
   * With `exposeAsTool`: `true` runs each call detached (a background run, src/background/). The
   * call answers at once with `{ runId, childThreadId, status: "running" }`; the child's result,
   * failure or stop reaches the caller's thread later, exactly once, as a message and a
   * `run_finished` event. `"per-call"`: the tool's input gains an optional boolean `background`,
   * and only a call that passes `background: true` (a model's, or `state.invokeTool`'s and
   * `state.queueTool`'s) runs detached; the child's `arguments` leave it out. Default false: the
   * call waits for the child's answer.
   */
  background?: boolean | "per-call";
  /** Required with `exposeAsTool`: what the agent does, as the calling model reads it. */
  toolDescription?: string;
  /**
   * Input of the agent when called as a tool; it becomes the child thread's `arguments`.
   * Absent: one required string, `input`, also posted as the child's first message.
   */
  args?: ToolArgs | JsonSchemaObject;
}

/** What {@link defineAgent} returns: a plain object. */
export type AgentDefinition = DefineAgentOptions & {
  /** Set by `defineAgent`: what the registry checks a file under `agents/agents/` exports. */
  readonly kind: "agent";
};

/**
 * Declares an agent. No side effects; the generated registry registers it under its file name.
 * @example
 * export default defineAgent({ sideA: "support", sideB: { prompt: "customer", stopTool: "resolve" }, maxSteps: 12 });
 */
export function defineAgent(options: DefineAgentOptions): AgentDefinition {
  return { ...options, kind: "agent" };
}

/** Everything `agents/` defines, as the generated registry exports it. */
export interface Registry {
  /** Tools by name (the file name under `agents/tools/`). */
  tools: Record<string, AnyToolDefinition>;
  /** Agents by id (the file name under `agents/agents/`). */
  agents: Record<string, AgentDefinition>;
  /** Prompts by name (the file name under `agents/prompts/`). */
  prompts?: Record<string, PromptDefinition>;
  /** Hooks by hook name (the file name under `agents/hooks/`). */
  hooks?: Record<string, HookDefinition>;
  /** Schedules by name (the file name under `agents/schedules/`; src/schedules/define.ts). */
  schedules?: Record<string, ScheduleDefinition>;
  /** Remote MCP servers by name (the file name under `agents/mcp/`); their tools are `<server>.<tool>`. */
  mcpServers?: Record<string, McpServerDefinition>;
}

/** The agent a thread gets when it names none. */
export const DEFAULT_AGENT_ID = "default";

/**
 * The agent a thread gets when it names none: the project's only agent when `agents/agents/`
 * holds exactly one, otherwise `default` (every tool in `agents/tools/`, no system prompt).
 */
export function defaultAgentId(registry: Registry): string {
  const ids = Object.keys(registry.agents);
  return ids.length === 1 ? ids[0]! : DEFAULT_AGENT_ID;
}

/** Resolves an agent by id; `default` falls back to an agent offering every tool. */
export function findAgent(registry: Registry, agentId: string): AgentDefinition | undefined {
  // Own properties only: "__proto__" or "constructor" must not name an agent.
  if (Object.hasOwn(registry.agents, agentId)) return registry.agents[agentId];
  return agentId === DEFAULT_AGENT_ID ? { kind: "agent" } : undefined;
}

/**
 * The agent a new thread runs: `agentId`, or the default when absent.
 * @throws WeftError `agent_not_found` (404, path `agent`) when no agent has that id.
 */
export function agentToRun(registry: Registry, agentId: string | undefined): { agentId: string; agent: AgentDefinition } {
  const id = agentId ?? defaultAgentId(registry);
  const agent = findAgent(registry, id);
  if (!agent) throw new WeftError("agent_not_found", `no agent ${quotedValue(id)}; agents: ${agentIds(registry).join(", ")}`, { path: ["agent"] });
  return { agentId: id, agent };
}

/** A prompt by name, own properties only. */
export function findPrompt(registry: Registry, name: string): PromptDefinition | undefined {
  const prompts = registry.prompts ?? {};
  return Object.hasOwn(prompts, name) ? prompts[name] : undefined;
}

/** Every agent id a thread may name: the registry's, plus `default` unless the registry defines it. */
export function agentIds(registry: Registry): string[] {
  const ids = Object.keys(registry.agents);
  return ids.includes(DEFAULT_AGENT_ID) ? ids.sort() : [DEFAULT_AGENT_ID, ...ids.sort()];
}

/** One side as an execution runs it: the prompt's fields merged with the side's stop conditions. */
export interface ResolvedSide {
  side: "a" | "b";
  /** The prompt file's name; absent for an agent's inline side a. */
  promptName?: string;
  system?: SystemPrompt;
  tools?: readonly string[];
  model?: string;
  fallbackModels?: readonly string[];
  modelSettings?: ModelSettings;
  outputSchema?: SchemaInput;
  env?: Record<string, EnvDefault>;
  maxSteps?: number;
  stopTool?: string;
  endsTurn: boolean;
}

/**
 * The sides of an agent, side a first. An agent without `sideA` runs its inline fields as side a.
 * @throws Error when a side names a prompt the registry lacks (the build refuses such agents).
 */
export function sidesOf(registry: Registry, agent: AgentDefinition): ResolvedSide[] {
  const twoSided = agent.sideB !== undefined;
  const resolve = (side: "a" | "b", raw: string | AgentSide | undefined): ResolvedSide => {
    if (raw === undefined) {
      return { side, ...pick(agent), endsTurn: true };
    }
    const spec: AgentSide = typeof raw === "string" ? { prompt: raw } : raw;
    const prompt = findPrompt(registry, spec.prompt);
    if (!prompt) throw new Error(`agent side ${side}: no prompt "${spec.prompt}"`);
    return {
      side,
      promptName: spec.prompt,
      ...pick(prompt),
      ...(spec.maxSteps !== undefined ? { maxSteps: spec.maxSteps } : {}),
      ...(spec.stopTool !== undefined ? { stopTool: spec.stopTool } : {}),
      endsTurn: spec.endsTurn ?? !twoSided,
    };
  };
  const a = resolve("a", agent.sideA);
  return twoSided ? [a, resolve("b", agent.sideB)] : [a];
}

/** The prompt-like fields of an agent (inline side a) or a prompt. */
function pick(def: AgentDefinition | PromptDefinition): Omit<ResolvedSide, "side" | "endsTurn" | "promptName" | "stopTool"> {
  return {
    ...(def.system !== undefined ? { system: def.system } : {}),
    ...(def.tools !== undefined ? { tools: def.tools } : {}),
    ...(def.model !== undefined ? { model: def.model } : {}),
    ...(def.fallbackModels !== undefined ? { fallbackModels: def.fallbackModels } : {}),
    ...(def.modelSettings !== undefined ? { modelSettings: def.modelSettings } : {}),
    ...(def.outputSchema !== undefined ? { outputSchema: def.outputSchema } : {}),
    ...(def.env !== undefined ? { env: def.env } : {}),
    ...(def.kind === "prompt" && def.maxSteps !== undefined ? { maxSteps: def.maxSteps } : {}),
  };
}

/**
 * Checks an agent definition's own shape; references to prompts and tools are checked against
 * the whole registry by `checkReferences`.
 * @throws WeftError `invalid_config` naming the agent and the rule broken.
 */
export function checkAgentDefinition(name: string, def: unknown): asserts def is AgentDefinition {
  const fail = configFailure(`agent "${name}"`);
  if (typeof def !== "object" || def === null || (def as { kind?: unknown }).kind !== "agent") {
    fail("the default export must be the value returned by defineAgent({...})");
  }
  const d = def as Record<string, unknown>;
  checkNameList(fail, "tools", d.tools);
  checkEnvDefaults(fail, d.env);
  checkSteps(fail, "maxSteps", d.maxSteps);
  if (d.budgets !== undefined) checkBudgets(d.budgets, [`agent "${name}"`, "budgets"], "invalid_config");
  if (d.budgetMessage !== undefined && (typeof d.budgetMessage !== "string" || d.budgetMessage === "")) fail("budgetMessage must be a non-empty string");
  checkModelSettings(fail, d.modelSettings);
  checkTurnSettingNames(fail, d.turnSettings);
  if (d.outputSchema !== undefined) finalAnswerSchema(`agent "${name}"`, d.outputSchema as SchemaInput);
  if (d.system !== undefined && typeof d.system !== "string" && typeof d.system !== "function") {
    fail("system must be a string or a function of the thread's arguments");
  }
  if (d.model !== undefined && (typeof d.model !== "string" || !MODEL_NAME_PATTERN.test(d.model))) {
    fail(`model must be "<provider>:<model id>", got ${JSON.stringify(d.model)}`);
  }
  checkModelList(fail, "fallbackModels", d.fallbackModels);
  checkHistoryOptions(fail, d.history, MODEL_NAME_PATTERN);
  for (const key of ["sideA", "sideB"] as const) {
    const side = d[key];
    if (side === undefined || typeof side === "string") continue;
    if (typeof side !== "object" || side === null || typeof (side as AgentSide).prompt !== "string") {
      fail(`${key} must be a prompt name or { prompt, maxSteps?, stopTool?, endsTurn? }`);
    }
    const s = side as AgentSide;
    checkSteps(fail, `${key}.maxSteps`, s.maxSteps);
    if (s.stopTool !== undefined && typeof s.stopTool !== "string") fail(`${key}.stopTool must be a tool name`);
    if (s.endsTurn !== undefined && typeof s.endsTurn !== "boolean") fail(`${key}.endsTurn must be a boolean`);
  }
  if (d.sideB !== undefined && d.sideA === undefined) fail("sideB needs sideA: name side a's prompt too");
  const inline = ["system", "tools", "model", "fallbackModels", "modelSettings", "outputSchema"].some((key) => d[key] !== undefined);
  if (d.sideA !== undefined && inline) {
    fail("system, tools, model, fallbackModels, modelSettings and outputSchema belong to side a's prompt when sideA is given; move them into the prompt");
  }
  if (d.hooks !== undefined) {
    if (typeof d.hooks !== "object" || d.hooks === null || Array.isArray(d.hooks)) fail("hooks must be an object of hook name -> function");
    for (const [hook, run] of Object.entries(d.hooks as Record<string, unknown>)) {
      if (!(HOOK_NAMES as readonly string[]).includes(hook)) fail(`hooks.${hook}: not a hook; the hooks are ${HOOK_NAMES.join(", ")}`);
      if (typeof run !== "function") fail(`hooks.${hook}: must be a function (state, ...) => ...`);
    }
  }
  if (d.exposeAsTool !== undefined && typeof d.exposeAsTool !== "boolean") fail("exposeAsTool must be a boolean");
  if (d.background !== undefined && typeof d.background !== "boolean" && d.background !== "per-call") fail('background must be true, false or "per-call"');
  if ((d.background === true || d.background === "per-call") && d.exposeAsTool !== true) fail("background needs exposeAsTool: true (only an agent called as a tool runs detached)");
  if (d.background === "per-call" && argsHaveBackground(d.args)) fail('background: "per-call" adds an input field named background; args must not have one');
  if (d.exposeAsTool === true && (typeof d.toolDescription !== "string" || d.toolDescription.trim() === "")) {
    fail("exposeAsTool needs toolDescription: a non-empty string that tells a model when to call this agent");
  }
}

/** Whether an agent's `args` (a Zod object or a JSON Schema object) name a field `background`. */
function argsHaveBackground(args: unknown): boolean {
  if (typeof args !== "object" || args === null) return false;
  const shape = (args as { shape?: unknown }).shape ?? (args as { properties?: unknown }).properties;
  return typeof shape === "object" && shape !== null && Object.hasOwn(shape, "background");
}
