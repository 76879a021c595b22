/**
 * What a schedule's target may name on a thread, and its tool input checked as the tool would
 * check it: refused when the schedule is made, never found out at its first firing.
 * @module
 */
import { validateInput } from "../calls/input.js";
import { WeftError } from "../errors.js";
import { modelOnlyReason } from "../tools/define.js";
import { findAgent } from "../run/agent.js";
import { serverOfToolName } from "../remote/remote-tools.js";
import type { RunWorld } from "../run/world.js";
import { endFile, threadIdOf, threadOf } from "./adopt.js";
import type { KnownNames } from "./define.js";
import { fileScheduleHolds } from "./files.js";
import { occurrenceKey } from "./info.js";
import type { ScheduleRow } from "./rows.js";
import type { ScheduleStore } from "./store.js";

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
        `tool ${JSON.stringify(name)} is not offered by this thread's agent (${JSON.stringify(own)}): a schedule calls its own thread's tools; make it on a thread whose agent offers ${JSON.stringify(name)}`) ||
      remoteReason(world, name),
  };
}

/** Why a remote MCP server's tool (`<server>__<tool>`) is no target: a schedule calls tools of agents/tools/ only. */
function remoteReason(world: RunWorld, name: string): string | false {
  const server = serverOfToolName(name, world.registry.mcpServers ?? {});
  if (!server) return false;
  return `tool ${JSON.stringify(name)} is a tool of the remote MCP server ${JSON.stringify(server)}: a schedule's tool target is one of agents/tools/; target the agent with a message that asks for it, or call it from a tool of yours`;
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

/**
 * Ends, instead of firing, a due schedule that can fire no more, and says whether it did: a file
 * schedule the deployment dropped ends `done` (adopt.ts `endFile`); one whose tool a deploy made
 * one only a model calls (`modelOnlyReason`: made before, or the tool changed since) is cancelled,
 * its due occurrence recorded `done` with outcome `tool_not_callable`, and `schedule_cancelled`
 * names why, rather than every occurrence failing the same way for good.
 */
export function endedUnfired(store: ScheduleStore, world: RunWorld, row: ScheduleRow, now: number): boolean {
  const target = row.spec.target;
  const why = "tool" in target && world.catalog.has(target.tool) ? modelOnlyReason(target.tool, world.catalog.definition(target.tool)) : null;
  if (why !== null) {
    const key = occurrenceKey(row.id, row.nextDue!);
    const cancelled = store.atomically(() => {
      if (store.journal({ key, scheduleId: row.id, dueAt: row.nextDue!, status: "done", callId: null }, now)) store.mark(key, "done", now, "tool_not_callable");
      return store.cancel(row.id, now);
    });
    if (cancelled) world.emit("schedule_cancelled", { scheduleId: row.id, errorCode: "tool_not_callable", error: why });
    return true;
  }
  if (fileScheduleHolds(world.registry, row.id, threadOf(world), threadIdOf(world))) return false;
  endFile(store, world, row.id, now);
  return true;
}
