/**
 * A file schedule taken up by its thread: the deployment's sync (src/schedules/deployment.ts)
 * sends `{ file: name }` through the thread's schedule create, and the thread makes the schedule
 * its own registry has under that name, once per version of the file, and ends every other
 * version. The thread decides from the registry it runs, never from what the request says, so a
 * sync from an older or newer deployment cannot make it run a version it does not have.
 *
 * A version a deploy dropped ends `done` (with a `schedule_cancelled` event), so the same file
 * brought back by a later deploy starts again; one its owner cancelled stays cancelled.
 * @module
 */
import { WeftError } from "../errors.js";
import { removedThread } from "../run/revocable.js";
import type { RunWorld } from "../run/world.js";
import type { ScheduleSpec } from "./define.js";
import { type FileThread, fileBelongs, fileNameOf, fileScheduleOf } from "./files.js";
import { type ScheduleInfo, infoOf } from "./info.js";
import type { ScheduleStore } from "./store.js";
import { fireTimeOf, nextDue } from "./timing.js";

/** What adopting needs of the thread's schedules (src/schedules/schedules.ts). */
export interface Adopter {
  readonly store: ScheduleStore;
  add(world: RunWorld, id: string, spec: ScheduleSpec, owner: string | null, now: number): Promise<ScheduleInfo>;
  wakeBy(at: number): Promise<void>;
}

/** Whether a schedule create's input asks to take up a file schedule: exactly `{ file: <name> }`. */
export function isFileAdoption(input: unknown): input is { file: string } {
  return typeof input === "object" && input !== null && Object.keys(input).length === 1 && typeof (input as { file?: unknown }).file === "string";
}

/** Who a thread is, as a file schedule's thread is named. */
export const threadOf = (world: RunWorld): FileThread => ({ userId: world.meta.userId, agentId: world.meta.agentId, threadId: world.meta.threadId });

/** The Durable Object id (hex) a thread name gives in this deployment's `THREAD` namespace; null without one. */
export const threadIdOf =
  (world: RunWorld) =>
  (name: string): string | null =>
    (world.workerEnv.THREAD as DurableObjectNamespace | undefined)?.idFromName(name).toString() ?? null;

/** Ends a file schedule version the deployment dropped: it fires nothing more. */
export function endFile(store: ScheduleStore, world: RunWorld, scheduleId: string, now: number): void {
  if (store.atomically(() => store.end(scheduleId, now))) world.emit("schedule_cancelled", { scheduleId });
}

/**
 * Takes up file schedule `name` in this thread as of `now` (epoch ms): makes its current version
 * unless the thread holds it (a version a deploy dropped starts again from `now`), and ends every
 * other active version. A file the registry no longer has, or one meant for another thread, only ends.
 * @returns the current version's schedule, or the last other version.
 * @throws WeftError `schedule_not_found` (404) when the registry has no such file for this thread and it held none.
 */
export async function adoptFile(schedules: Adopter, world: RunWorld, name: string, now: number): Promise<ScheduleInfo> {
  // Run after earlier count changes were answered: the thread may have been removed meanwhile, and its store is shared with one made again.
  if (world.removed) throw removedThread();
  const { store } = schedules;
  const file = fileScheduleOf(world.registry, name);
  const mine = file && fileBelongs(file, threadOf(world), threadIdOf(world)) ? file : undefined;
  let last: ScheduleInfo | undefined;
  for (const row of store.withPrefix(`sch_file_${name}_`)) {
    if (fileNameOf(row.id) !== name || row.id === mine?.scheduleId) continue;
    endFile(store, world, row.id, now);
    last = infoOf(store.get(row.id)!);
  }
  if (!mine) {
    if (last) return last;
    throw new WeftError("schedule_not_found", `this thread runs no file schedule ${JSON.stringify(name)}`, { scheduleId: name });
  }
  const held = store.get(mine.scheduleId);
  if (!held) return schedules.add(world, mine.scheduleId, mine.spec, mine.owner, now);
  const next = held.status === "done" ? nextDue(mine.spec, now, now) : null;
  if (next === null) return infoOf(held);
  const fireAt = fireTimeOf(mine.spec, now, held.id, next);
  if (store.atomically(() => store.reopen(held.id, now, next, fireAt))) {
    const info = infoOf(store.get(held.id)!);
    world.emit("schedule_created", { schedule: info });
    await schedules.wakeBy(fireAt);
    return info;
  }
  return infoOf(store.get(held.id)!);
}
