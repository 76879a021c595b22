/**
 * The deadlines of a thread's model requests, from the Worker's env.
 * @module
 */
import { integerSetting } from "../config.js";
import { perEnv } from "../per-env.js";
import { MODEL_IDLE_MS, MODEL_STEP_MS, type StepDeadlines } from "./step-deadline.js";

/** The model request deadlines a Worker's env sets (`WEFT_MODEL_IDLE_MS`, `WEFT_MODEL_STEP_MS`), else the defaults. */
export const modelDeadlinesOf = perEnv(
  (env: Readonly<Record<string, unknown>>): StepDeadlines => ({
    idleMs: integerSetting(env, "WEFT_MODEL_IDLE_MS", 1) ?? MODEL_IDLE_MS,
    stepMs: integerSetting(env, "WEFT_MODEL_STEP_MS", 1) ?? MODEL_STEP_MS,
  }),
);
