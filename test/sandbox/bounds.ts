/**
 * Bounds on a run's wall time in the sandbox suites. npm test runs them beside other work (a second
 * npm test, at load averages of 20 and more on two cores), where wall time is not the run's own:
 * there a case asserts the mechanism (a deadline fires and says how it was measured, a stop
 * cancels, the thread answers before the run would let it) within {@link LOADED_MS} more, still far
 * below what a broken mechanism would take. `npm run sandbox`, the proof, holds them to `tightMs`.
 * @module
 */
import { inject } from "vitest";

declare module "vitest" {
  interface ProvidedContext {
    /** `full` under `npm run sandbox` (test/sandbox/vitest.config.ts); npm test runs the short versions. */
    sandboxScale?: "short" | "full";
  }
}

/** What a loaded machine may add to a run's wall time, in milliseconds. */
export const LOADED_MS = 10_000;

/** `tightMs` under `npm run sandbox`; `tightMs` + {@link LOADED_MS} under npm test. */
export const within = (tightMs: number): number => (inject("sandboxScale") === "full" ? tightMs : tightMs + LOADED_MS);

/** Whether this is `npm run sandbox` (every case); npm test leaves out the slowest cases of a kind it still covers. */
export const fullScale = (): boolean => inject("sandboxScale") === "full";
