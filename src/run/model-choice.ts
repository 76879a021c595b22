/**
 * Which model a thread's turns talk to, per side (each side of a two-sided agent has its own):
 * the side's `model` (its prompt file's, or the agent's inline one), else the `WEFT_MODEL` env
 * value, else the scripted model playing the thread's script.
 * @module
 */
import { WeftError } from "../errors.js";
import type { Model, ModelRequest, ModelStreamPart } from "../models/model.js";
import { MODEL_ENV, type ModelEnv, PROVIDERS, resolveModel } from "../models/registry.js";
import { parseModelSpec } from "../models/spec.js";
import { createScriptedModel } from "../models/scripted.js";
import type { ResolvedSide } from "./agent.js";
import type { RunWorld } from "./world.js";
import type { ModelInForce } from "./rpc-shapes.js";
import { type EnvEntry, type EnvSources, type ResolvedEnv, resolveEnv } from "../secrets/env.js";
import { Redactor } from "../secrets/redact.js";
import { envSources } from "./state.js";

/** A model named by a definition or by env, with where it was named (for error messages). */
export interface ModelChoice {
  spec: string;
  /** The file (`agents/prompts/x.ts`, `agents/agents/y.ts`) or `env WEFT_MODEL`. */
  where: string;
  /** The env level that answered, when the spec came from env. */
  level?: ResolvedEnv["level"];
}

/**
 * The env value weft/testing gives a thread's model by (a spec, or `scripted`). Honoured only when
 * the Worker runs under the author's test runner (its own `WEFT_TEST_RUNNER=on`, which no thread or
 * account env sets), where it beats the agent's and prompt's `model`: a test of an agent pinned to
 * a provider plays its script instead of calling the provider. A deployed Worker ignores it.
 */
export const TEST_MODEL_ENV = "WEFT_TEST_MODEL";

/** The model a test gave the thread (`undefined`: none, or not under the test runner; null: the scripted model). */
async function testModelOf(engine: RunWorld, sources: EnvSources): Promise<ModelChoice | null | undefined> {
  if (engine.workerEnv.WEFT_TEST_RUNNER !== "on") return undefined;
  const forced = await resolveEnv(sources, TEST_MODEL_ENV, { nonEmpty: true });
  if (!forced) return undefined;
  return forced.value === "scripted" ? null : { spec: forced.value, where: `env ${TEST_MODEL_ENV}`, level: forced.level };
}

/** The model spec a side uses, or null for the scripted model. */
export async function modelChoiceOf(engine: RunWorld, sources: EnvSources, side: ResolvedSide = engine.sides[0]!): Promise<ModelChoice | null> {
  const tested = await testModelOf(engine, sources);
  if (tested !== undefined) return tested;
  if (side.model !== undefined) return { spec: side.model, where: whereOf(engine, side) };
  // As for provider keys, an empty value is no value: `WEFT_MODEL=` in .dev.vars means the scripted model.
  const fromEnv = await resolveEnv(sources, MODEL_ENV, { nonEmpty: true });
  return fromEnv ? { spec: fromEnv.value, where: `env ${MODEL_ENV}`, level: fromEnv.level } : null;
}

/** The model each side of the thread talks to now, side a first, for `GET /threads/:id`. */
export async function modelsInForce(engine: RunWorld): Promise<ModelInForce[]> {
  const sources = envSources(engine);
  const out: ModelInForce[] = [];
  // A test's model replaces every side's: said so, not "no model" in a file that names one.
  if ((await testModelOf(engine, sources)) === null) return engine.sides.map((side) => ({ side: side.side, spec: "scripted", where: `env ${TEST_MODEL_ENV} (the test's model)` }));
  for (const side of engine.sides) {
    const choice = await modelChoiceOf(engine, sources, side);
    out.push(
      choice
        ? { side: side.side, spec: choice.spec, where: choice.level ? `${choice.where} (${choice.level} level)` : choice.where }
        : { side: side.side, spec: "scripted", where: `no model in ${whereOf(engine, side)} and no ${MODEL_ENV}` },
    );
  }
  return out;
}

/**
 * Creates the model for a thread's next turn.
 * @throws WeftError `invalid_config` naming the file or env value of an unusable spec.
 */
export async function modelFor(engine: RunWorld, side?: ResolvedSide): Promise<Model> {
  const sources = envSources(engine);
  const choice = await modelChoiceOf(engine, sources, side);
  if (!choice) return createScriptedModel(engine.store.script);
  return modelOf(choice.spec, await modelEnvOf(engine, sources), choice.where);
}

/** Where a side's definition lives, for error messages. */
function whereOf(engine: RunWorld, side: ResolvedSide): string {
  return side.promptName !== undefined ? `agents/prompts/${side.promptName}.ts` : `agents/agents/${engine.meta.agentId}.ts`;
}

/**
 * The fallback models of a side (its prompt's `fallbackModels`, or the agent's inline ones), in order.
 * @throws WeftError `invalid_config` naming the file and entry of an unusable spec.
 */
export async function fallbacksFor(engine: RunWorld, side: ResolvedSide = engine.sides[0]!): Promise<Model[]> {
  const specs = side.fallbackModels ?? [];
  // A test's model stands alone: a fallback would reach the provider the test replaced.
  if (specs.length === 0 || (await testModelOf(engine, envSources(engine))) !== undefined) return [];
  const env = await modelEnvOf(engine, envSources(engine));
  return specs.map((spec, i) => modelOf(spec, env, `${whereOf(engine, side)} (fallbackModels[${i}])`));
}

/**
 * Resolves a model spec named in a definition (a fallback, a summary model) against the thread's env.
 * @throws WeftError `invalid_config` naming `where` for an unusable spec.
 */
export async function resolveModelSpec(engine: RunWorld, spec: string, where: string): Promise<Model> {
  return modelOf(spec, await modelEnvOf(engine, envSources(engine)), where);
}

/**
 * A spec's model, whose failures are cleaned of the key it sends. The key is weft's to use, never
 * handed to thread code, so a thread's redactor need not hold it (src/secrets/thread-secrets.ts); but a provider may
 * echo it in an error ("Incorrect API key provided: sk-..."), and that text becomes the turn's
 * error, which the user reads. Only that key is looked for, in that model's errors only: the
 * text came from the endpoint configured at the key's own level (registry.ts), not from the user.
 */
function modelOf(spec: string, env: ModelEnv, where: string): Model {
  const model = resolveModel(spec, env, where);
  const keyEnv = PROVIDERS[parseModelSpec(spec, where).provider].keyEnv;
  const key = keyEnv === undefined ? undefined : env.lookup(keyEnv)?.value;
  const r = new Redactor(key === undefined ? [] : [{ name: keyEnv!, value: key }]);
  return r.secrets.length === 0 ? model : { ...model, stream: (request: ModelRequest) => withoutKey(model.stream(request), r) };
}

/** A model's stream with its failures (a thrown error, a cut finish's `error`) cleaned by `r`. */
async function* withoutKey(parts: AsyncIterable<ModelStreamPart>, r: Redactor): AsyncGenerator<ModelStreamPart> {
  try {
    for await (const part of parts) yield part.type === "finish" && part.error !== undefined ? { ...part, error: r.text(part.error) } : part;
  } catch (e) {
    // Cleaned in place: the error's class and fields (retryable, status, code) decide retries.
    if (e instanceof Error) {
      e.message = r.text(e.message);
      if (e.stack !== undefined) e.stack = r.text(e.stack);
    }
    throw e;
  }
}

/** Every provider's key and base URL env names, from the registry's table (read once, not per turn). */
const PROVIDER_ENV_NAMES = Object.values(PROVIDERS).flatMap((p) => [p.keyEnv, p.baseUrlEnv].filter((n): n is string => n !== undefined));

/**
 * The registry's view of a thread's environment: every provider's key and base URL resolved up
 * front with the level that set it, an empty value counting as none (src/models/registry.ts
 * applies the endpoint rule to the levels).
 */
async function modelEnvOf(engine: RunWorld, sources: EnvSources): Promise<ModelEnv> {
  const resolved = new Map(await Promise.all(PROVIDER_ENV_NAMES.map(async (n) => [n, await resolveEnv(sources, n, { nonEmpty: true })] as const)));
  return {
    lookup: (name) => {
      const found = resolved.get(name);
      return found ? { value: found.value, level: found.level } : undefined;
    },
    binding: (name) => engine.workerEnv[name],
  };
}

/**
 * Checks a new thread's model spec, so a typo fails `POST /threads` rather than the first turn.
 * A spec the client sent in the thread's env is the client's mistake (`invalid_request`); one in
 * a definition or the Worker's vars is the deployment's (`invalid_config`), naming the file.
 */
export async function checkModel(engine: RunWorld, threadEnv: (name: string) => EnvEntry | undefined): Promise<void> {
  // Fallbacks and the summary model are named in definitions only: the deployment's mistake.
  for (const side of engine.sides) (side.fallbackModels ?? []).forEach((spec, i) => parseModelSpec(spec, `${whereOf(engine, side)} (fallbackModels[${i}])`));
  const summaryModel = engine.agent.history?.summaryModel;
  if (summaryModel !== undefined) parseModelSpec(summaryModel, `agents/agents/${engine.meta.agentId}.ts (history.summaryModel)`);
  // Each side talks to its own model: a typo in side b's prompt fails here too.
  for (const side of engine.sides) {
    const choice = await modelChoiceOf(engine, { ...envSources(engine), thread: threadEnv }, side);
    if (!choice) continue;
    try {
      parseModelSpec(choice.spec, choice.where);
    } catch (e) {
      if (choice.level === "thread" && e instanceof WeftError) throw new WeftError("invalid_request", e.message, { path: ["env", MODEL_ENV] });
      throw e;
    }
  }
}

/**
 * Refuses a posted script on a thread whose model is not the scripted one: it would never play.
 * @throws WeftError `invalid_request` at path `script`.
 */
export async function checkScriptable(engine: RunWorld): Promise<void> {
  const choices = await Promise.all(engine.sides.map((side) => modelChoiceOf(engine, envSources(engine), side)));
  // A side on the scripted model plays the script (with two sides, either may be).
  const choice = choices.some((c) => c === null) ? null : choices[0];
  if (choice) throw new WeftError("invalid_request", `script: this thread's model comes from ${choice.where}; scripts play only on the scripted model`, { path: ["script"] });
}
