/**
 * `defineAgent`: what a thread runs, its tools, environment defaults and default script.
 * @module
 */
import type { ScriptStep } from "../models/model.js";
import type { AnyToolDefinition } from "../tools/types.js";

/** An environment default given by an agent; plain strings are `secret` (the Standard Agents tools API's default). */
export type EnvDefault = string | { value: string; type?: "text" | "secret" };

/** Options of {@link defineAgent}. */
export interface DefineAgentOptions {
  description?: string;
  /** System prompt sent with every model request. */
  system?: string;
  /** Names of registered tools this agent offers; default every tool in `agents/tools/`. */
  tools?: readonly string[];
  /**
   * Extra tools built from the thread's creation `arguments` (checked on first use, like any
   * dynamically defined tool). Used by fixture agents whose tools are data, such as BFCL cases.
   */
  toolsFromArguments?: (args: Record<string, unknown>) => Record<string, AnyToolDefinition>;
  /** Environment defaults, resolved after the thread's own values (the Standard Agents tools API's order). */
  env?: Record<string, EnvDefault>;
  /** Steps the scripted model plays in a new thread before any posted script. */
  script?: ScriptStep[];
  /** Upper bound on model steps per turn; default 25. */
  maxSteps?: number;
}

/** What {@link defineAgent} returns: a plain object. */
export type AgentDefinition = DefineAgentOptions & { readonly kind: "agent" };

/**
 * Declares an agent. No side effects; the generated registry registers it under its file name.
 * @example
 * export default defineAgent({ system: "You help with orders.", tools: ["lookup_order"] });
 */
export function defineAgent(options: DefineAgentOptions): AgentDefinition {
  return { ...options, kind: "agent" };
}

/** Everything `agents/` defines, as the generated registry exports it. */
export interface Registry {
  tools: Record<string, AnyToolDefinition>;
  agents: Record<string, AgentDefinition>;
}

/** The agent a thread gets when it names none. */
export const DEFAULT_AGENT_ID = "default";

/** Resolves an agent by id; `default` falls back to an agent offering every tool. */
export function findAgent(registry: Registry, agentId: string): AgentDefinition | undefined {
  // Own properties only: "__proto__" or "constructor" must not name an agent.
  if (Object.hasOwn(registry.agents, agentId)) return registry.agents[agentId];
  return agentId === DEFAULT_AGENT_ID ? { kind: "agent" } : undefined;
}

/** Every agent id a thread may name: the registry's, plus `default` unless the registry defines it. */
export function agentIds(registry: Registry): string[] {
  const ids = Object.keys(registry.agents);
  return ids.includes(DEFAULT_AGENT_ID) ? ids.sort() : [DEFAULT_AGENT_ID, ...ids.sort()];
}
