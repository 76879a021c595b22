/**
 * A thread whose agent this deployment no longer has (a deploy removed or renamed its file): the
 * thread still starts, so it can be read, subscribed to, deleted, and told of its owner's budgets;
 * only what needs the agent (a new message, a direct call, a turn) is refused, with
 * `agent_not_found` naming it. A deploy that brings the agent back makes the thread whole again.
 * @module
 */
import { WeftError, errorMessage } from "../errors.js";
import { type AgentDefinition, type Registry, type ResolvedSide, findAgent, sidesOf } from "./agent.js";

/** The agent a thread runs in its own's place: it offers nothing (not every tool, as `default` does). */
const NO_AGENT: AgentDefinition = Object.freeze({ kind: "agent", tools: Object.freeze([]) });

/** A thread's agent as this deployment has it. */
export interface ThreadAgent {
  agent: AgentDefinition;
  sides: ResolvedSide[];
  /** Why the agent cannot run here (what {@link requireAgentOf} throws); null when it can. */
  missing: { code: "agent_not_found" | "invalid_config"; message: string } | null;
}

/** Resolves the thread's agent `agentId` and its sides; never throws (see {@link ThreadAgent.missing}). */
export function threadAgentOf(registry: Registry, agentId: string): ThreadAgent {
  const agent = findAgent(registry, agentId);
  if (!agent) {
    return { agent: NO_AGENT, sides: sidesOf(registry, NO_AGENT), missing: { code: "agent_not_found", message: `the thread's agent "${agentId}" is no longer deployed; its messages, calls and usage can still be read, and the thread deleted` } };
  }
  try {
    return { agent, sides: sidesOf(registry, agent), missing: null };
  } catch (e) {
    // A prompt it names went (the registry build refuses that, so only a hand-made registry gets here).
    return { agent: NO_AGENT, sides: sidesOf(registry, NO_AGENT), missing: { code: "invalid_config", message: `the thread's agent "${agentId}" cannot run in this deployment: ${errorMessage(e)}` } };
  }
}

/**
 * @throws WeftError `agent_not_found` (404, `details.agentId`) when the thread's agent is no
 * longer deployed; `invalid_config` when it cannot be built here.
 */
export function requireAgentOf(agentId: string, resolved: ThreadAgent): void {
  if (resolved.missing) throw new WeftError(resolved.missing.code, resolved.missing.message, { agentId });
}
