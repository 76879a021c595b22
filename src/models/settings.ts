/**
 * Model settings an agent or a prompt gives its model requests: sampling, output bounds, which
 * tools the model must or may call, reasoning effort, prompt caching, and provider options passed
 * through. Checked when the registry is built; applied by the AI SDK adapter (`ai-sdk.ts`); the
 * scripted model plays its script whatever they say.
 * @module
 */
import { z } from "zod";

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

const schema = z.strictObject({
  temperature: z.number().min(0).max(2).optional(),
  topP: z.number().gt(0).max(1).optional(),
  maxOutputTokens: z.int().min(1).optional(),
  stopSequences: z.array(z.string().min(1)).max(16).optional(),
  toolChoice: z.union([z.enum(["auto", "none", "required"]), z.strictObject({ tool: z.string().min(1) })]).optional(),
  reasoningEffort: z.enum(["provider-default", "none", "minimal", "low", "medium", "high", "xhigh", "max"]).optional(),
  promptCaching: z.boolean().optional(),
  providerOptions: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
});

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
