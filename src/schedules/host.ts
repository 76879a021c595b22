/**
 * The schedules and background runs of a thread's Durable Object, wired to its one alarm: the
 * alarm takes their earliest due time as a floor (`due`) and is armed through `ensureDue`.
 * @module
 */
import type { CrashHook, CrashPoint } from "../calls/context.js";
import type { ScheduleHost } from "./schedule-host.js";
import { ThreadSchedules } from "./schedules.js";
import { ScheduleStore } from "./store.js";
import { BackgroundRuns } from "../background/runs.js";
import { RunStore } from "../background/store.js";

/** The part of the thread's alarm the schedules use (src/thread/alarm.ts). */
export interface ScheduleAlarm {
  due: () => number | null;
  ensureDue(at?: number): Promise<void>;
}

/**
 * Makes a thread's schedules over its storage and alarm. `hasTables` says whether the thread's
 * tables exist (not before its create nor after its removal); `running` answers the thread's run
 * world (null when there is none); `counted` runs an occurrence's call as work a removal waits for; `crashHook` is the crash tests' seam (null in production):
 * each step of an occurrence calls it with the rows durable, as the pipeline's `after_result`.
 */
export function schedulesOf(
  storage: DurableObjectStorage,
  hasTables: () => boolean,
  alarm: ScheduleAlarm,
  running: ScheduleHost["running"],
  counted: ScheduleHost["counted"],
  crashHook: (() => CrashHook | null | undefined) | null,
): ThreadSchedules {
  const crash = async (point: string, callId: string) => {
    const hook = crashHook?.();
    if (!hook) return;
    await storage.sync();
    await hook(point as CrashPoint, { callId, toolName: "schedule" });
  };
  const wakeBy = (at: number) => alarm.ensureDue(at);
  const runs = new BackgroundRuns(new RunStore(storage, hasTables), { running, wakeBy });
  const schedules = new ThreadSchedules(new ScheduleStore(storage, hasTables), { running, wakeBy, counted, ...(crashHook ? { crash } : {}) }, runs);
  // Background runs share the alarm too: their next look at a child is a due time like a schedule's.
  alarm.due = () => {
    if (!running()) return null;
    const [a, b] = [schedules.dueAt(), runs.dueAt()];
    return a === null ? b : b === null ? a : Math.min(a, b);
  };
  return schedules;
}
