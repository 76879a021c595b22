/**
 * What a new thread must pass before anything of it is stored: its tools' `timeArgs` on a frozen
 * thread, the variables its tools require, and its models.
 * @module
 */
import { checkTimeArgNames } from "../calls/time-args.js";
import type { EnvEntry } from "../secrets/env.js";
import { checkModel } from "./model-choice.js";
import { envSources } from "./state.js";
import { checkRequiredVariables, reachableTools } from "./variables.js";
import type { RunWorld } from "./world.js";

/**
 * Checks the thread `world` is about to be, with `threadEnv` its own env values (not stored
 * yet). Every tool it can reach is checked: either side's, and those of the prompts it calls.
 * @throws WeftError what `checkTimeArgNames` (an `asOf` thread), `checkRequiredVariables` and
 * `checkModel` throw; nothing is stored then.
 */
export async function checkNewThread(world: RunWorld, threadEnv: (name: string) => EnvEntry | undefined): Promise<void> {
  const reachable = reachableTools(world.registry, world.sides, world.catalog);
  if (world.meta.asOf) checkTimeArgNames(reachable);
  await checkRequiredVariables(reachable, { ...envSources(world), thread: threadEnv });
  await checkModel(world, threadEnv);
}
