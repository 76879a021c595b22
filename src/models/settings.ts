/**
 * Model settings an agent or a prompt gives its model requests: sampling, output bounds, which
 * tools the model must or may call, reasoning effort, prompt caching, and provider options passed
 * through. Checked when the registry is built; applied by the AI SDK adapter (`ai-sdk.ts`); the
 * scripted model plays its script whatever they say.
 * @module
 */
import { z } from "zod";
import { WeftError } from "../errors.js";

/** How the model may use the tools on offer: the AI SDK's tool choice, with a named tool as `{ tool }`. */
export type ToolChoiceSetting = "auto" | "none" | "required" | { tool: string };

/** Reasoning effort, in the AI SDK's terms; each provider maps it to its own (OpenAI `reasoning_effort`, Anthropic thinking). */
export type ReasoningEffort = "provider-default" | "none" | "minimal" | "low" | "medium" | "high" | "xhigh" | "max";

/** The settings of every model request of one agent side or prompt. Every field is optional: absent means the provider's default. */
export interface ModelSettings {
  /** Sampling temperature, 0 to 2 (providers cap lower: Anthropic at 1). */
  temperature?: number;
  /** Nucleus sampling: the probability mass of tokens considered, above 0 and at most 1. */
  topP?: number;
  /** Most tokens one model step may write (a whole number from 1). */
  maxOutputTokens?: number;
  /** Texts that end the model's output when it writes them (at most 16, none empty). */
  stopSequences?: readonly string[];
  /** `auto` (default), `none`, `required` (some tool), or `{ tool: "<name>" }` (that tool, which must be on offer). */
  toolChoice?: ToolChoiceSetting;
  /** How hard a reasoning model thinks before it answers. */
  reasoningEffort?: ReasoningEffort;
  /**
   * Marks the system prompt and the newest message as cacheable where the provider needs it said
   * (Anthropic's `cache_control`); OpenAI caches long prompts by itself.
   */
  promptCaching?: boolean;
  /** Provider options passed through as the AI SDK takes them, keyed by provider (`{ openai: { ... } }`). */
  providerOptions?: Record<string, Record<string, unknown>>;
}

const fields = {
  temperature: z.number().min(0).max(2).optional(),
  topP: z.number().gt(0).max(1).optional(),
  maxOutputTokens: z.int().min(1).optional(),
  stopSequences: z.array(z.string().min(1)).max(16).optional(),
  toolChoice: z.union([z.enum(["auto", "none", "required"]), z.strictObject({ tool: z.string().min(1) })]).optional(),
  reasoningEffort: z.enum(["provider-default", "none", "minimal", "low", "medium", "high", "xhigh", "max"]).optional(),
  promptCaching: z.boolean().optional(),
  providerOptions: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
};
const schema = z.strictObject(fields);

/**
 * Checks `modelSettings` of a definition; calls `fail` with the first broken rule and its path
 * (`modelSettings.temperature: ...`).
 */
export function checkModelSettings(fail: (rule: string) => never, value: unknown): void {
  if (value === undefined) return;
  const parsed = schema.safeParse(value);
  if (parsed.success) return;
  const issue = parsed.error.issues[0]!;
  fail(`${["modelSettings", ...issue.path.map(String)].join(".")}: ${issue.message}`);
}

/** The tool a `toolChoice` names, when it names one. */
export function namedToolChoice(settings: ModelSettings | undefined): string | undefined {
  const choice = settings?.toolChoice;
  return typeof choice === "object" ? choice.tool : undefined;
}

/**
 * The settings a posted message may give its turn (`POST /threads/:id/messages` `modelSettings`),
 * each only where the agent lets it (`defineAgent({ turnSettings })`). Provider options never: they
 * reach past weft's checks into the provider's request.
 */
export type TurnModelSettings = Omit<ModelSettings, "providerOptions">;

/** The names of {@link TurnModelSettings}: what `turnSettings` may list. */
export const TURN_SETTING_NAMES = ["temperature", "topP", "maxOutputTokens", "stopSequences", "toolChoice", "reasoningEffort", "promptCaching"] as const;

/** One setting a message may give its turn: temperature, topP, maxOutputTokens, stopSequences, toolChoice, reasoningEffort or promptCaching. */
export type TurnSettingName = (typeof TURN_SETTING_NAMES)[number];

/** The shape of a posted message's `modelSettings` (ranges as in {@link ModelSettings}; unknown fields refused). */
export const turnSettingsSchema = z.strictObject({
  temperature: fields.temperature,
  topP: fields.topP,
  maxOutputTokens: fields.maxOutputTokens,
  stopSequences: fields.stopSequences,
  toolChoice: fields.toolChoice,
  reasoningEffort: fields.reasoningEffort,
  promptCaching: fields.promptCaching,
}) satisfies z.ZodType<TurnModelSettings>;

/** Checks an agent's `turnSettings`: a list of {@link TURN_SETTING_NAMES}; calls `fail` naming the broken entry. */
export function checkTurnSettingNames(fail: (rule: string) => never, value: unknown): void {
  if (value === undefined) return;
  if (!Array.isArray(value)) fail(`turnSettings must be a list of setting names (${TURN_SETTING_NAMES.join(", ")})`);
  value.forEach((name, i) => {
    if (!(TURN_SETTING_NAMES as readonly unknown[]).includes(name)) {
      fail(`turnSettings.${i}: ${JSON.stringify(name)} is not a setting a message may give; they are ${TURN_SETTING_NAMES.join(", ")}`);
    }
  });
}

/** What a turn's settings are checked against: the agent's side a. */
export interface TurnSettingLimits {
  /** Whose limits, for the error (`agent "support"`). */
  owner: string;
  /** The agent's `turnSettings`: what a message may set at all. */
  allowed: readonly TurnSettingName[] | undefined;
  /** Side a's own settings: a message may lower its `maxOutputTokens`, never raise it. */
  own: ModelSettings | undefined;
  /** Whether side a offers a tool by this name (a named `toolChoice`). */
  offers(tool: string): boolean;
}

/**
 * Checks a posted message's `modelSettings` (already of {@link turnSettingsSchema}'s shape)
 * against the agent's limits.
 * @throws WeftError `invalid_request` with the path (`modelSettings.temperature`) for a setting the
 * agent does not let a message give, a `maxOutputTokens` above side a's own, or a named tool choice
 * side a does not offer.
 */
export function checkTurnSettings(settings: TurnModelSettings, limits: TurnSettingLimits): void {
  const refuse = (name: string, why: string): never => {
    throw new WeftError("invalid_request", `modelSettings.${name}: ${why}`, { path: ["modelSettings", name] });
  };
  const allowed = limits.allowed ?? [];
  for (const name of Object.keys(settings)) {
    if (!(allowed as readonly string[]).includes(name)) {
      const list = allowed.length > 0 ? `it allows ${allowed.join(", ")}` : "it allows none";
      refuse(name, `${limits.owner} does not let a message set ${name} (its turnSettings: ${list})`);
    }
  }
  const ceiling = limits.own?.maxOutputTokens;
  if (settings.maxOutputTokens !== undefined && ceiling !== undefined && settings.maxOutputTokens > ceiling) {
    refuse("maxOutputTokens", `${settings.maxOutputTokens} is above ${limits.owner}'s own maxOutputTokens, ${ceiling}; a message may lower it, not raise it`);
  }
  const tool = namedToolChoice(settings);
  if (tool !== undefined && !limits.offers(tool)) refuse("toolChoice", `names "${tool}", which ${limits.owner} does not offer`);
}

/** Side settings with a turn's on top (the turn's win field by field); provider options stay the side's. */
export function withTurnSettings(own: ModelSettings | undefined, turn: TurnModelSettings | undefined): ModelSettings | undefined {
  if (turn === undefined || Object.keys(turn).length === 0) return own;
  return { ...own, ...turn };
}
