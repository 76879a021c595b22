/**
 * File schedules (`agents/schedules/<name>.ts`) as a deployment runs them. Each runs in a thread
 * of its own, one per schedule and owner, whose Durable Object id is named from the two, so every
 * sync (src/schedules/deployment.ts) reaches the same thread. In that thread the schedule's id is
 * `sch_file_<name>_<version>`, the version a hash of what the file says: a deploy that leaves the
 * file as it was keeps the same row (no occurrence twice, an `every` keeps counting from its
 * start), one that changes it cancels the old row and makes a new one, and one that removes it
 * cancels it. The thread also checks at each firing that the deployment it runs in still has that
 * version, so a removed or changed file never fires again after a deploy, even before a sync.
 * @module
 */
import { DEFAULT_AGENT_ID, type Registry } from "../run/agent.js";
import { FILE_SCHEDULE_OWNER, checkScheduleDefinition } from "./define.js";
import type { ScheduleSpec } from "./spec.js";
import { fnv1a } from "./timing.js";

/** A file schedule as this deployment has it. */
export interface FileSchedule {
  /** The file name under `agents/schedules/`. */
  name: string;
  /** The user its thread belongs to. */
  owner: string;
  /** The agent its thread runs: the target's agent, or `default` (every tool) for a tool target. */
  agent: string;
  /** The schedule as checked. */
  spec: ScheduleSpec;
  /** The schedule's id in its thread: `sch_file_<name>_<version>` (8 hex digits of the file's content). */
  scheduleId: string;
  /** The name its thread's Durable Object id is made from (`idFromName`). */
  threadName: string;
}

const PREFIX = "sch_file_";

/** The thread name of a file schedule: the same for the same schedule and owner in every deployment. */
export const fileThreadName = (name: string, owner: string) => `file-schedule:${JSON.stringify([name, owner])}`;

/** The file schedule `name` of `registry`, or undefined when it has none by that name. */
export function fileScheduleOf(registry: Registry, name: string): FileSchedule | undefined {
  const defs = registry.schedules ?? {};
  if (!Object.hasOwn(defs, name)) return undefined;
  const def = defs[name]!;
  const owner = def.owner ?? FILE_SCHEDULE_OWNER;
  // Checked at build against the project's names; the thread's catalog decides at each firing.
  const spec = checkScheduleDefinition(name, def, { agent: () => true, tool: () => true });
  const agent = "agent" in spec.target ? spec.target.agent : DEFAULT_AGENT_ID;
  const version = fnv1a(JSON.stringify([spec, owner, agent])).toString(16).padStart(8, "0");
  return { name, owner, agent, spec, scheduleId: `${PREFIX}${name}_${version}`, threadName: fileThreadName(name, owner) };
}

/** Every file schedule of `registry`, by name. */
export function fileSchedulesOf(registry: Registry): FileSchedule[] {
  return Object.keys(registry.schedules ?? {})
    .sort()
    .map((name) => fileScheduleOf(registry, name)!);
}

/** The file schedule name in a schedule id, or null for a schedule made at run time. */
export function fileNameOf(scheduleId: string): string | null {
  const m = /^sch_file_([a-z][a-z0-9_]{0,63})_[0-9a-f]{8}$/.exec(scheduleId);
  return m ? m[1]! : null;
}

/** What a file schedule's thread is: its owner, its agent and its id. */
export interface FileThread {
  userId: string | null;
  agentId: string;
  threadId: string;
}

/**
 * Whether the schedule `scheduleId` may run in `thread`: one made at run time always; a file
 * schedule only while `registry` has the same version of its file for this very thread (its
 * owner, its agent and the id named from them; `idOf` turns a thread name into a Durable Object id).
 */
export function fileScheduleHolds(registry: Registry, scheduleId: string, thread: FileThread, idOf: (name: string) => string | null): boolean {
  const name = fileNameOf(scheduleId);
  if (name === null) return true;
  const file = fileScheduleOf(registry, name);
  return file !== undefined && file.scheduleId === scheduleId && fileBelongs(file, thread, idOf);
}

/** Whether `file` is to run in `thread`. */
export function fileBelongs(file: FileSchedule, thread: FileThread, idOf: (name: string) => string | null): boolean {
  return file.owner === thread.userId && file.agent === thread.agentId && idOf(file.threadName) === thread.threadId;
}
