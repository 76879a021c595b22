/**
 * The model registry: resolves `"<provider>:<model id>"` to a `Model`. One table says, for each
 * provider, which env values carry its key and base URL, which history rules it follows and how
 * its AI SDK model is made.
 * @module
 */
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { createWorkersAI } from "workers-ai-provider";
import { WeftError } from "../errors.js";
import { fromLanguageModel } from "./ai-sdk.js";
import type { Wire } from "./history.js";
import type { Model } from "./model.js";
import { type ProviderName, parseModelSpec } from "./spec.js";

/** How the registry reads the thread's environment (thread, agent defaults, Worker vars and secrets). */
export interface ModelEnv {
  /** The resolved value of an env name, or undefined. */
  value(name: string): string | undefined;
  /** Whether the value came from the thread's own env, which whoever created the thread chose. */
  fromThread(name: string): boolean;
  /** A Worker binding (the `AI` binding of Workers AI). */
  binding(name: string): unknown;
}

interface ProviderEntry {
  /** Env name of the API key (a `secret`). */
  keyEnv?: string;
  /** Env name of the base URL; lets `wrangler dev` point at a local server. */
  baseUrlEnv?: string;
  baseUrlRequired?: boolean;
  /** Worker binding the provider runs over. */
  binding?: string;
  wire: Wire;
  strictTools?: boolean;
  create(settings: { apiKey?: string; baseURL?: string; binding?: unknown }, modelId: string): LanguageModelV4;
}

/** How each provider of `PROVIDER_MODEL_IDS` (./spec.ts) is reached, by the name used in `"<provider>:<model id>"`. */
export const PROVIDERS: Readonly<Record<ProviderName, ProviderEntry>> = {
  openai: {
    keyEnv: "OPENAI_API_KEY",
    baseUrlEnv: "OPENAI_BASE_URL",
    wire: "openai",
    strictTools: true,
    create: ({ apiKey, baseURL }, id) => createOpenAI({ ...(apiKey ? { apiKey } : {}), ...(baseURL ? { baseURL } : {}) }).responses(id),
  },
  anthropic: {
    keyEnv: "ANTHROPIC_API_KEY",
    baseUrlEnv: "ANTHROPIC_BASE_URL",
    wire: "anthropic",
    create: ({ apiKey, baseURL }, id) => createAnthropic({ ...(apiKey ? { apiKey } : {}), ...(baseURL ? { baseURL } : {}) })(id),
  },
  "openai-compatible": {
    keyEnv: "OPENAI_COMPATIBLE_API_KEY",
    baseUrlEnv: "OPENAI_COMPATIBLE_BASE_URL",
    baseUrlRequired: true,
    wire: "openai",
    create: ({ apiKey, baseURL }, id) =>
      createOpenAICompatible({ name: "openai-compatible", baseURL: baseURL!, includeUsage: true, ...(apiKey ? { apiKey } : {}) }).chatModel(id),
  },
  "workers-ai": {
    binding: "AI",
    wire: "generic",
    create: ({ binding }, id) => createWorkersAI({ binding: binding as never })(id as never),
  },
};

/** The env value that names a thread's model when its agent names none. */
export const MODEL_ENV = "WEFT_MODEL";

/**
 * Resolves a model spec against a thread's environment.
 * @throws WeftError `invalid_config` when the spec is bad, a required base URL or binding is
 * missing, or a base URL set on the thread would receive a key the thread did not set.
 */
export function resolveModel(spec: string, env: ModelEnv, where: string): Model {
  const { provider, modelId } = parseModelSpec(spec, where);
  const entry = PROVIDERS[provider];
  const apiKey = entry.keyEnv ? env.value(entry.keyEnv) : undefined;
  const baseURL = entry.baseUrlEnv ? env.value(entry.baseUrlEnv) : undefined;
  if (entry.baseUrlRequired && !baseURL) throw new WeftError("invalid_config", `${where}: ${provider} needs the env value ${entry.baseUrlEnv}`, { where });
  // A thread may point a provider elsewhere only with its own key: never send the Worker's secret there.
  if (entry.baseUrlEnv && entry.keyEnv && env.fromThread(entry.baseUrlEnv) && apiKey !== undefined && !env.fromThread(entry.keyEnv)) {
    throw new WeftError("invalid_config", `${where}: ${entry.baseUrlEnv} set on the thread needs ${entry.keyEnv} set on the thread too`, { where });
  }
  let binding: unknown;
  if (entry.binding) {
    binding = env.binding(entry.binding);
    if (!binding) throw new WeftError("invalid_config", `${where}: ${provider} needs the Worker binding ${entry.binding}`, { where });
  }
  const model = entry.create({ ...(apiKey ? { apiKey } : {}), ...(baseURL ? { baseURL } : {}), ...(binding ? { binding } : {}) }, modelId);
  return fromLanguageModel(model, {
    id: `${provider}:${modelId}`,
    wire: entry.wire,
    ...(entry.strictTools ? { strictTools: true } : {}),
    contextTokens: contextTokensOf(provider, modelId),
  });
}

/** Context window by model family, in tokens; 128k when the family is not listed. */
export function contextTokensOf(provider: string, modelId: string): number {
  if (provider === "anthropic") return 200_000;
  if (/^gpt-4\.1/.test(modelId)) return 1_047_576;
  if (/^gpt-5/.test(modelId)) return 400_000;
  if (/^o\d/.test(modelId)) return 200_000;
  return 128_000;
}
