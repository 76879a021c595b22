/**
 * The `ExecutionState` of a running turn (the Standard Agents tools API), exposed to tools as `state.execution`.
 * @module
 */
import type { Message } from "../protocol.js";
import type { ExecutionState } from "../tools/thread-state.js";

/** Creates the execution state for one turn; `setSteps` is the loop's handle on the counters. */
export function createExecution(
  flowId: string,
  abort: AbortController,
  history: () => Message[],
): { state: ExecutionState; setSteps(steps: number): void; stopRequested(): boolean } {
  let steps = 0;
  let stopped = false;
  const state: ExecutionState = {
    flowId,
    currentSide: "a",
    get stepCount() {
      return steps;
    },
    get sideAStepCount() {
      return steps;
    },
    sideBStepCount: 0,
    get stopped() {
      return stopped || abort.signal.aborted;
    },
    get messageHistory() {
      return history();
    },
    forceTurn() {
      // Side b arrives with dual-sided agents; a one-sided turn has only side a.
    },
    stop() {
      // The calling tool finishes normally; the turn ends before its next model step.
      stopped = true;
    },
    abortSignal: abort.signal,
    promptPath: [],
  };
  return {
    state,
    setSteps(n: number) {
      steps = n;
    },
    stopRequested: () => stopped,
  };
}
