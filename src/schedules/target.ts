/**
 * What a schedule's target may name on a thread, and its tool input checked as the tool would
 * check it: refused when the schedule is made, never found out at its first firing.
 * @module
 */
import { validateInput } from "../calls/input.js";
import { WeftError } from "../errors.js";
import { modelOnlyReason } from "../tools/define.js";
import { findAgent } from "../run/agent.js";
import type { RunWorld } from "../run/world.js";
import type { KnownNames } from "./define.js";

/**
 * The names a schedule on this thread may target: its own agent, and the tools its agent offers
 * that any caller can call (not a client or provider tool). A name that exists elsewhere in the
 * project, or such a tool, gets its own reason, not "unknown".
 */
export function targetNames(world: RunWorld): KnownNames {
  const own = world.meta.agentId;
  return {
    agent: (name) =>
      name === own ||
      (findAgent(world.registry, name) !== undefined &&
        `agent ${JSON.stringify(name)} is not this thread's agent (${JSON.stringify(own)}): a schedule's message goes to its own thread; make it on a thread of ${JSON.stringify(name)}`),
    tool: (name) =>
      // No occurrence could call a tool only a model calls: each would fail tool_not_callable.
      (world.catalog.has(name) && (modelOnlyReason(name, world.catalog.definition(name)) ?? true)) ||
      (Object.hasOwn(world.registry.tools, name) &&
        `tool ${JSON.stringify(name)} is not offered by this thread's agent (${JSON.stringify(own)}): a schedule calls its own thread's tools; make it on a thread whose agent offers ${JSON.stringify(name)}`),
  };
}

/**
 * Checks a tool target's input against the tool's schema, as each occurrence's call will.
 * @throws WeftError `invalid_tool_input` (400) with `path` from `["target", "input"]` to the value refused.
 */
export function checkToolInput(world: RunWorld, toolName: string, input: unknown): void {
  const checked = validateInput(world.catalog.get(toolName), input ?? {});
  if (checked.ok) return;
  const path = (checked.error.details?.path as (string | number)[] | undefined) ?? [];
  throw new WeftError("invalid_tool_input", `target.input: ${checked.error.message}`, { ...checked.error.details, path: ["target", "input", ...path] });
}
