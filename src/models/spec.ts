/**
 * `"<provider>:<model id>"` parsing and checking, apart from the provider packages so the build
 * (scripts/registry/evaluate.mjs) can refuse a misspelt id without loading any provider.
 * @module
 */
import { WeftError } from "../errors.js";
import { nearNames } from "../near-names.js";
import { ANTHROPIC_MODEL_IDS, OPENAI_MODEL_IDS } from "./known-models.js";

/**
 * The providers weft knows, each with the model ids its package declares (null: any id is
 * accepted). The model registry's provider table is keyed by exactly these names.
 */
export const PROVIDER_MODEL_IDS = {
  openai: OPENAI_MODEL_IDS,
  "openai-chat": OPENAI_MODEL_IDS,
  anthropic: ANTHROPIC_MODEL_IDS,
  "openai-compatible": null,
  "workers-ai": null,
} as const satisfies Record<string, readonly string[] | null>;

/** A provider name of {@link PROVIDER_MODEL_IDS}. */
export type ProviderName = keyof typeof PROVIDER_MODEL_IDS;

/**
 * Longest `"<provider>:<model id>"` weft takes, in characters. Real ids run to about 100 (a
 * Bedrock inference-profile ARN); a user may name their thread's model, and the id is stored with
 * every model step and usage row, and compared with each known id when it is unknown.
 */
export const MAX_MODEL_SPEC_LENGTH = 256;

/**
 * Splits and checks `"<provider>:<model id>"`. `where` names the file or field for the message.
 * @throws WeftError `invalid_config` for a spec over {@link MAX_MODEL_SPEC_LENGTH} characters, a
 * malformed spec, an unknown provider, or a model id the provider's package does not declare
 * (with the nearest declared ids).
 */
export function parseModelSpec(spec: unknown, where: string): { provider: ProviderName; modelId: string } {
  if (typeof spec === "string" && spec.length > MAX_MODEL_SPEC_LENGTH) {
    throw new WeftError("invalid_config", `${where}: model is ${spec.length} characters, over the ${MAX_MODEL_SPEC_LENGTH} a "<provider>:<model id>" may have`, { where });
  }
  const match = typeof spec === "string" ? /^([a-z][a-z0-9-]*):(\S+)$/.exec(spec) : null;
  if (!match) throw new WeftError("invalid_config", `${where}: model ${JSON.stringify(spec)} is not "<provider>:<model id>"`, { where });
  const [, name, modelId] = match as unknown as [string, string, string];
  if (!Object.hasOwn(PROVIDER_MODEL_IDS, name)) {
    throw new WeftError("invalid_config", `${where}: unknown model provider "${name}"; providers: ${Object.keys(PROVIDER_MODEL_IDS).join(", ")}`, { where });
  }
  const provider = name as ProviderName;
  const known: readonly string[] | null = PROVIDER_MODEL_IDS[provider];
  if (known && !known.includes(modelId)) {
    const near = nearNames(modelId, known);
    throw new WeftError("invalid_config", `${where}: unknown ${provider} model "${modelId}"${near.length ? `; did you mean ${near.join(", ")}?` : ""}`, { where });
  }
  return { provider, modelId };
}
