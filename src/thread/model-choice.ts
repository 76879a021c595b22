/**
 * Which model a thread's turns talk to: the agent's `model`, else the `WEFT_MODEL` env value,
 * else the scripted model playing the thread's script.
 * @module
 */
import { WeftError } from "../errors.js";
import { fromLanguageModel } from "../models/ai-sdk.js";
import type { Model } from "../models/model.js";
import { MODEL_ENV, type ModelEnv, parseModelSpec, resolveModel } from "../models/registry.js";
import { createScriptedModel } from "../models/scripted.js";
import type { ThreadEngine } from "./engine.js";
import { resolveEnv } from "./state.js";

/** The model spec a thread uses and where it came from, or null for the scripted model. */
export function modelSpecOf(engine: ThreadEngine): { spec: NonNullable<ThreadEngine["agent"]["model"]>; where: string } | null {
  const { agent, meta } = engine;
  if (agent.model !== undefined) return { spec: agent.model, where: `agents/agents/${meta.agentId}.ts` };
  const fromEnv = resolveEnv(engine, MODEL_ENV)?.value;
  return fromEnv ? { spec: fromEnv, where: `env ${MODEL_ENV}` } : null;
}

/**
 * Creates the model for a thread's next turn.
 * @throws WeftError `invalid_config` naming the agent file or env value for an unusable spec.
 */
export function modelFor(engine: ThreadEngine): Model {
  const chosen = modelSpecOf(engine);
  if (!chosen) return createScriptedModel(engine.store.script);
  if (typeof chosen.spec !== "string") return fromLanguageModel(chosen.spec);
  return resolveModel(chosen.spec, modelEnvOf(engine), chosen.where);
}

/** The registry's view of a thread's environment. */
export function modelEnvOf(engine: ThreadEngine): ModelEnv {
  return {
    value: (name) => resolveEnv(engine, name)?.value,
    fromThread: (name) => engine.store.env.get(name) !== undefined,
    binding: (name) => engine.workerEnv[name],
  };
}

/**
 * Checks the thread's model spec when the thread is created, so a typo fails `POST /threads`
 * rather than the first turn.
 * @throws WeftError `invalid_config` naming the agent file or env value.
 */
export function checkModel(engine: ThreadEngine): void {
  const chosen = modelSpecOf(engine);
  if (!chosen || typeof chosen.spec !== "string") return;
  const fromClient = engine.agent.model === undefined && engine.store.env.get(MODEL_ENV) !== undefined;
  try {
    parseModelSpec(chosen.spec, chosen.where);
  } catch (e) {
    // A spec the client sent with the thread is the client's mistake, not the deployment's.
    if (fromClient && e instanceof WeftError) throw new WeftError("invalid_request", e.message, { path: ["env", MODEL_ENV] });
    throw e;
  }
}
