/**
 * A background run as `state.runs`, its events and its completion message give it.
 * @module
 */

/** A background run as `state.runs` and the run events give it (src/background/). */
export interface RunInfo {
  /** The run's id: `run_<callId>` of the call that started it. */
  runId: string;
  /** The agent it runs. */
  agentId: string;
  /** The child thread it runs in. */
  childThreadId: string;
  /** `running` until its completion is delivered; then how it ended. */
  status: "running" | "completed" | "failed" | "stopped";
  /** The child's final text, once completed (or stopped with one). */
  answer?: string;
  /** Why it failed or stopped. */
  error?: string;
  /** When it started and (once delivered) ended, ISO-8601. */
  startedAt: string;
  finishedAt?: string;
}
