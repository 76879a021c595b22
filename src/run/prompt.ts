/**
 * `definePrompt`: a system prompt with its model, tools and environment defaults, declared in
 * `agents/prompts/<name>.ts`. A prompt is the unit an agent side runs, and through its required
 * `toolDescription` it is also a tool: a call runs the prompt as a nested loop and answers with
 * the nested loop's final text.
 * @module
 */
import type { ScriptStep } from "../models/model.js";
import { type ModelSettings, checkModelSettings } from "../models/settings.js";
import { WeftError } from "../errors.js";
import type { JsonSchemaObject, SchemaInput, ToolArgs } from "../tools/types.js";
import { finalAnswerSchema } from "./final-answer.js";

/** An environment default given by an agent or a prompt; plain strings are `secret` (the default type). */
export type EnvDefault = string | { value: string; type?: "text" | "secret" };

/** A system prompt: fixed text, or built from the thread's creation `arguments`. */
export type SystemPrompt = string | ((args: Readonly<Record<string, unknown>>) => string);

/** Options of {@link definePrompt}. */
export interface DefinePromptOptions {
  /**
   * Required: what the prompt does, as the model reads it when the prompt is offered as a tool
   * (the tool is named after the file, `agents/prompts/<name>.ts`).
   */
  toolDescription: string;
  /** System prompt sent with every model request this prompt makes. */
  system?: SystemPrompt;
  /** Model as `"<provider>:<model id>"`; absent means the thread's model (scripted unless configured). */
  model?: string;
  /**
   * Models tried in order, each as `"<provider>:<model id>"`, when a model step fails with a
   * provider error after its retries (a 429 or 5xx that persists, a network failure, an error answer).
   */
  fallbackModels?: readonly string[];
  /**
   * Names this prompt offers the model: tools in `agents/tools/`, other prompts, or agents with
   * `exposeAsTool`. Absent: every tool in `agents/tools/`.
   */
  tools?: readonly string[];
  /**
   * Input of the prompt when called as a tool (a Zod object or a JSON Schema object). Absent: one
   * required string, `input`. The call's arguments open the nested loop as its first user message.
   */
  args?: ToolArgs | JsonSchemaObject;
  /** Environment defaults, consulted after the thread's and the agent's own (env resolution order). */
  env?: Record<string, EnvDefault>;
  /** Upper bound on model steps of one run of this prompt; default 25. */
  maxSteps?: number;
  /**
   * Settings of this prompt's model requests: temperature, top-p, max output tokens, stop
   * sequences, tool choice, reasoning effort, prompt caching, provider options ({@link ModelSettings}).
   */
  modelSettings?: ModelSettings;
  /**
   * A schema this prompt's final answer must meet (a Zod schema or a JSON Schema). The model is
   * told the schema; an answer that is not JSON it accepts is sent back once with the problem,
   * and refused again the run fails with `invalid_output` naming the path.
   */
  outputSchema?: SchemaInput;
  /** Steps the scripted model plays in a new thread before any posted script (one-sided agents). */
  script?: ScriptStep[];
}

/** What {@link definePrompt} returns: a plain object. */
export type PromptDefinition = DefinePromptOptions & {
  /** Set by `definePrompt`: what the registry checks a file under `agents/prompts/` exports. */
  readonly kind: "prompt";
};

/**
 * Declares a prompt. No side effects; the generated registry registers it under its file name.
 * @example
 * export default definePrompt({
 *   toolDescription: "Summarise the order history of a customer in three lines.",
 *   system: (args) => `You summarise orders for ${String(args.company ?? "the shop")}.`,
 *   tools: ["lookup_order"],
 * });
 */
export function definePrompt(options: DefinePromptOptions): PromptDefinition {
  return { ...options, kind: "prompt" };
}

/** Metadata key tagging each message of a prompt call's nested run with the call's id. */
export const PROMPT_CALL_KEY = "promptCall";

/** Text of a system prompt for a thread's `arguments`. */
export function systemText(system: SystemPrompt | undefined, args: Readonly<Record<string, unknown>>): string | undefined {
  return typeof system === "function" ? system(args) : system;
}

/** `"<provider>:<model id>"`; which providers exist is the model registry's rule. */
export const MODEL_NAME_PATTERN = /^[a-z][a-z0-9-]*:.+$/;

/** Fails with `invalid_config` naming `what` (for example `prompt "triage"`) and the rule broken. */
export function configFailure(what: string): (rule: string) => never {
  return (rule) => {
    throw new WeftError("invalid_config", `${what}: ${rule}`, { definition: what });
  };
}

/** Checks an `env` defaults map. */
export function checkEnvDefaults(fail: (rule: string) => never, env: unknown): void {
  if (env === undefined) return;
  if (typeof env !== "object" || env === null || Array.isArray(env)) fail("env must be an object of name -> value");
  for (const [name, value] of Object.entries(env as Record<string, unknown>)) {
    const ok =
      typeof value === "string" ||
      (typeof value === "object" &&
        value !== null &&
        typeof (value as { value?: unknown }).value === "string" &&
        [undefined, "text", "secret"].includes((value as { type?: unknown }).type as string));
    if (!ok) fail(`env.${name} must be a string or { value: string, type?: "text" | "secret" }`);
  }
}

/** Checks a list of model specs (`fallbackModels`); which providers exist is the registry's rule. */
export function checkModelList(fail: (rule: string) => never, field: string, list: unknown): void {
  if (list === undefined) return;
  if (!Array.isArray(list)) fail(`${field} must be an array of "<provider>:<model id>"`);
  (list as unknown[]).forEach((spec, i) => {
    if (typeof spec !== "string" || !MODEL_NAME_PATTERN.test(spec)) fail(`${field}[${i}] must be "<provider>:<model id>", got ${JSON.stringify(spec)}`);
  });
}

/** Checks a list of callable names (`tools`). */
export function checkNameList(fail: (rule: string) => never, field: string, list: unknown): void {
  if (list !== undefined && (!Array.isArray(list) || list.some((t) => typeof t !== "string"))) fail(`${field} must be an array of names`);
}

/** Checks a positive step bound. */
export function checkSteps(fail: (rule: string) => never, field: string, n: unknown): void {
  if (n !== undefined && (!Number.isInteger(n) || (n as number) < 1)) fail(`${field} must be a positive integer`);
}

/**
 * Checks a prompt definition's shape; argument schemas are compiled when the prompt is offered.
 * @throws WeftError `invalid_config` naming the prompt and the rule broken.
 */
export function checkPromptDefinition(name: string, def: unknown): asserts def is PromptDefinition {
  const fail = configFailure(`prompt "${name}"`);
  if (typeof def !== "object" || def === null || (def as { kind?: unknown }).kind !== "prompt") {
    fail("the default export must be the value returned by definePrompt({...})");
  }
  const d = def as Record<string, unknown>;
  if (typeof d.toolDescription !== "string" || d.toolDescription.trim() === "") {
    fail("toolDescription is required: a non-empty string that tells a model when to call this prompt");
  }
  if (d.system !== undefined && typeof d.system !== "string" && typeof d.system !== "function") {
    fail("system must be a string or a function of the thread's arguments");
  }
  if (d.model !== undefined && (typeof d.model !== "string" || !MODEL_NAME_PATTERN.test(d.model))) {
    fail(`model must be "<provider>:<model id>", got ${JSON.stringify(d.model)}`);
  }
  checkModelList(fail, "fallbackModels", d.fallbackModels);
  checkNameList(fail, "tools", d.tools);
  checkEnvDefaults(fail, d.env);
  checkSteps(fail, "maxSteps", d.maxSteps);
  checkModelSettings(fail, d.modelSettings);
  if (d.outputSchema !== undefined) finalAnswerSchema(`prompt "${name}"`, d.outputSchema as SchemaInput);
  if (d.script !== undefined && !Array.isArray(d.script)) fail("script must be an array of steps");
}
