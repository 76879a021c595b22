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
import { USER_LEVELS } from "../secrets/env.js";
import { fromLanguageModel } from "./ai-sdk.js";
import type { Wire } from "./history.js";
import type { Model } from "./model.js";
import { type ProviderName, parseModelSpec } from "./spec.js";

/** An env value with the level of env resolution that set it. */
export interface LeveledValue {
  value: string;
  /** The level that answered, as `ENV_LEVELS` (src/secrets/env.ts) names it: thread, agent, prompt, user, worker. */
  level: string;
}

/**
 * How the registry reads a thread's environment (thread, agent and prompt defaults, the user's
 * account, the Worker's vars and secrets), each value with the level that set it, so the endpoint
 * rule of {@link providerSettings} is one check.
 */
export interface ModelEnv {
  /** The first non-empty value of an env name through the levels, or undefined: an empty value is no value. */
  lookup(name: string): LeveledValue | undefined;
  /** A Worker binding (the `AI` binding of Workers AI). */
  binding(name: string): unknown;
}

/** What a provider's AI SDK model is made with; every option explicit, so no package reads `process.env`. */
interface ProviderSettings {
  /** The key, or "" for none (no credential header is sent). */
  apiKey: string;
  baseURL: string;
  binding?: unknown;
  /** The key (or, keyless, the base URL) came from a level the user sets. */
  userPaid?: boolean;
}

interface ProviderEntry {
  /** Env name of the API key (a `secret`). */
  keyEnv?: string;
  /** Env name of the base URL; lets `wrangler dev` point at a local server. */
  baseUrlEnv?: string;
  /** Where the provider is called when no level sets a base URL; none means the base URL is required. */
  defaultBaseUrl?: string;
  /** Worker binding the provider runs over. */
  binding?: string;
  wire: Wire;
  strictTools?: boolean;
  create(settings: ProviderSettings, modelId: string): LanguageModelV4;
}

/**
 * Headers that unset a package's credential header: the AI SDK drops a header whose value is
 * undefined (provider-utils `normalizeHeaders`), so a keyless call sends none, not an empty one.
 */
const without = (header: string) => ({ [header]: undefined }) as unknown as Record<string, string>;

/** How each provider of `PROVIDER_MODEL_IDS` (./spec.ts) is reached, by the name used in `"<provider>:<model id>"`. */
export const PROVIDERS: Readonly<Record<ProviderName, ProviderEntry>> = {
  openai: {
    keyEnv: "OPENAI_API_KEY",
    baseUrlEnv: "OPENAI_BASE_URL",
    defaultBaseUrl: "https://api.openai.com/v1",
    wire: "openai",
    strictTools: true,
    // apiKey and baseURL always given: otherwise the package reads OPENAI_API_KEY / OPENAI_BASE_URL from process.env.
    create: ({ apiKey, baseURL }, id) => createOpenAI({ apiKey, baseURL, ...(apiKey ? {} : { headers: without("Authorization") }) }).responses(id),
  },
  // OpenAI's Chat Completions API, with the same key and base URL as its Responses API above.
  "openai-chat": {
    keyEnv: "OPENAI_API_KEY",
    baseUrlEnv: "OPENAI_BASE_URL",
    defaultBaseUrl: "https://api.openai.com/v1",
    wire: "openai",
    strictTools: true,
    create: ({ apiKey, baseURL }, id) => createOpenAI({ apiKey, baseURL, ...(apiKey ? {} : { headers: without("Authorization") }) }).chat(id),
  },
  anthropic: {
    keyEnv: "ANTHROPIC_API_KEY",
    baseUrlEnv: "ANTHROPIC_BASE_URL",
    defaultBaseUrl: "https://api.anthropic.com/v1",
    wire: "anthropic",
    // apiKey and baseURL always given: otherwise the package reads ANTHROPIC_API_KEY / ANTHROPIC_BASE_URL from process.env.
    create: ({ apiKey, baseURL }, id) => createAnthropic({ apiKey, baseURL, ...(apiKey ? {} : { headers: without("x-api-key") }) })(id),
  },
  "openai-compatible": {
    keyEnv: "OPENAI_COMPATIBLE_API_KEY",
    baseUrlEnv: "OPENAI_COMPATIBLE_BASE_URL",
    wire: "openai",
    // This package reads no env; an empty key sends no Authorization header.
    create: ({ apiKey, baseURL }, id) => createOpenAICompatible({ name: "openai-compatible", baseURL, includeUsage: true, apiKey }).chatModel(id),
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
 * missing, or a key would go to a base URL set at another env level ({@link providerSettings}).
 */
export function resolveModel(spec: string, env: ModelEnv, where: string): Model {
  const { provider, modelId } = parseModelSpec(spec, where);
  const entry = PROVIDERS[provider];
  const settings = providerSettings(provider, entry, env, where);
  const model = entry.create(settings, modelId);
  // `openai:` speaks the Responses API; most servers "compatible with OpenAI" speak only Chat Completions.
  const elsewhere = provider === "openai" && settings.baseURL !== entry.defaultBaseUrl;
  // The base URL is quoted only when the user set it: the deployment's is a Worker secret (a
  // gateway's path may name an account or carry a token) that no thread code received.
  const base = entry.baseUrlEnv ? env.lookup(entry.baseUrlEnv) : undefined;
  const where404 = base && USER_LEVELS.has(base.level) ? settings.baseURL : `<${entry.baseUrlEnv}>`;
  return fromLanguageModel(model, {
    id: `${provider}:${modelId}`,
    wire: entry.wire,
    ...(entry.strictTools ? { strictTools: true } : {}),
    contextTokens: contextTokensOf(provider, modelId),
    ...(settings.userPaid ? { userPaid: true } : {}),
    ...(elsewhere ? { notFoundHint: `openai:${modelId} speaks OpenAI's Responses API (POST ${where404}/responses); a server that speaks only Chat Completions is reached as openai-chat:${modelId}` } : {}),
  });
}

/**
 * A provider's key, base URL and binding. The endpoint rule (docs/env-and-secrets.md "Secrets and redaction"): a key
 * from one env level is only ever sent to a base URL set at that same level. So with a base URL
 * set at some level, the key must come from that level or from none (a keyless call); with no
 * base URL anywhere the key, from whichever level, goes to the provider's own endpoint. Empty
 * values were already dropped by `env.lookup`, so an empty key is never a level's own key.
 * @throws WeftError `invalid_config` naming both env names and their levels when they differ, or
 * naming the base URL or binding a provider needs.
 */
function providerSettings(provider: ProviderName, entry: ProviderEntry, env: ModelEnv, where: string): ProviderSettings {
  let binding: unknown;
  if (entry.binding) {
    binding = env.binding(entry.binding);
    if (!binding) throw new WeftError("invalid_config", `${where}: ${provider} needs the Worker binding ${entry.binding}`, { where });
  }
  const key = entry.keyEnv ? env.lookup(entry.keyEnv) : undefined;
  const base = entry.baseUrlEnv ? env.lookup(entry.baseUrlEnv) : undefined;
  if (entry.baseUrlEnv && !base && !entry.defaultBaseUrl) throw new WeftError("invalid_config", `${where}: ${provider} needs the env value ${entry.baseUrlEnv}`, { where });
  if (base && key && base.level !== key.level) {
    throw new WeftError(
      "invalid_config",
      `${where}: ${entry.baseUrlEnv} comes from the ${base.level} level and ${entry.keyEnv} from the ${key.level} level; a key is only sent to a base URL set at its own level: ` +
        `set ${entry.keyEnv} at the ${base.level} level too (any non-empty value for an endpoint that needs no key), or unset ${entry.baseUrlEnv} there`,
      { where },
    );
  }
  // Who pays: the level of the key, or of the base URL a keyless call goes to; a binding is the deployment's.
  const payer = binding ? undefined : (key ?? base)?.level;
  return { apiKey: key?.value ?? "", baseURL: base?.value ?? entry.defaultBaseUrl ?? "", ...(binding ? { binding } : {}), userPaid: payer !== undefined && USER_LEVELS.has(payer) };
}

/** Context window by model family, in tokens; 128k when the family is not listed. */
export function contextTokensOf(provider: string, modelId: string): number {
  if (provider === "anthropic") return 200_000;
  if (/^gpt-4\.1/.test(modelId)) return 1_047_576;
  if (/^gpt-5/.test(modelId)) return 400_000;
  if (/^o\d/.test(modelId)) return 200_000;
  return 128_000;
}
