/**
 * What a thread's schedules need of their Durable Object: the contract host.ts wires and
 * schedules.ts runs on.
 * @module
 */
import type { TurnRunner } from "../run/turn-runner.js";
import type { RunWorld } from "../run/world.js";

/** What the schedules need of their Durable Object. */
export interface ScheduleHost {
  /** The thread's run world and turn runner; null when there is no thread (or it is being removed). */
  running(): { world: RunWorld; runner: TurnRunner } | null;
  /** Makes sure the alarm fires by `at` (epoch ms) at the latest. */
  wakeBy(at: number): Promise<void>;
  /** Runs an occurrence's call as work the thread's removal waits for, and cuts once its grace ends. */
  counted<T>(work: () => Promise<T>): Promise<T>;
  /**
   * Test seam of the crash tests: called at each step of an occurrence (`occurrence_due` before
   * its journal row, `occurrence_journaled` after it, `occurrence_done` after its call's result)
   * with the occurrence's call id; the test Thread aborts there. Absent in production.
   */
  crash?(point: OccurrencePoint, callId: string): Promise<void>;
}

/** The steps of an occurrence a crash test may cut (see {@link ScheduleHost.crash}). */
export type OccurrencePoint = "occurrence_due" | "occurrence_journaled" | "occurrence_done";
