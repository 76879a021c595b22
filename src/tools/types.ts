/**
 * Authoring types for tools (the Standard Agents tools API's `defineTool`) with the semantic options of the Agent SDK tools reference and weft's effect table.
 * @module
 */
import type { z } from "zod";
import type { ToolResult } from "../protocol.js";
import type { ThreadState } from "./thread-state.js";

/** A Zod 4 object schema for a tool's arguments (the Standard Agents tools API's `ToolArgs`). */
export type ToolArgs = z.ZodObject<z.ZodRawShape>;

/** The fields of a {@link ToolArgs} object, by argument name (the Standard Agents tools API's `ToolArgsRawShape`). */
export type ToolArgsRawShape = z.ZodRawShape;

/**
 * The field schemas the Standard Agents tools API lists as supported (its `ToolArgsNode`). weft
 * takes any Zod 4 field with a JSON form in `args` (the build refuses the rest), so this union
 * names the portable subset rather than a limit.
 */
export type ToolArgsNode =
  | z.ZodString
  | z.ZodNumber
  | z.ZodBoolean
  | z.ZodEnum
  | z.ZodLiteral
  | z.ZodArray
  | z.ZodObject
  | z.ZodRecord
  | z.ZodUnion
  | z.ZodOptional
  | z.ZodNullable
  | z.ZodDefault;

/**
 * A tool body in the Standard Agents tools API's form (its `Tool`): `state` and, when the tool has
 * `args`, the parsed arguments. Usable as `execute`; weft's third argument ({@link ToolCallContext}) is optional to take.
 */
export type Tool<State = ThreadState, Args extends ToolArgs | null = null> = Args extends ToolArgs
  ? (state: State, args: z.infer<Args>) => Promise<ToolResult>
  : (state: State) => Promise<ToolResult>;

/** A plain JSON Schema object describing a tool's arguments; validated with JSON Schema semantics. */
export interface JsonSchemaObject {
  /** Arguments are always one JSON object. */
  type: "object";
  /** A JSON Schema per argument name. */
  properties?: Record<string, unknown>;
  /** Argument names that must be present. */
  required?: readonly string[];
  /** Any other JSON Schema keyword (drafts 4, 7, 2019-09 and 2020-12, chosen by `$schema`). */
  [keyword: string]: unknown;
}

/** Either form of an argument or output schema. */
export type SchemaInput = ToolArgs | z.ZodType | JsonSchemaObject;

/** Thread environment variables a tool needs (the Standard Agents tools API's `variables`). */
export interface VariableDefinition {
  /** The env name the tool reads with `state.env(name)`. */
  name: string;
  /** Whether the value may be shown (`text`) or must be redacted (`secret`); informational: the level that answers decides `envType`. */
  type?: "text" | "secret";
  /**
   * When true, creating a thread whose agent can reach this tool fails with `400 missing_variables`
   * (naming the variable and the tools that need it) unless the name resolves at some env level.
   */
  required?: boolean;
  /** What the value is, for whoever sets it up. */
  description?: string;
}

/** Typed thread environment shape (the Standard Agents tools API's `ToolTenvs`): a Zod object over env names. */
export type ToolTenvs = z.ZodObject<z.ZodRawShape>;

/**
 * How a call touches the world (the Agent SDK tools reference; weft's effect table). Undeclared means `write`, unguarded.
 * - `read`: no effect outside; retried on transient failure; re-run after a crash.
 * - `idempotent`: repeating the same effect key has no further effect inside `dedupWindowMs`.
 * - `reconcilable`: after a crash, `reconcile.lookup(effectKey)` says whether it took effect.
 * - `write`: runs at most once per call id; an uncertain outcome is parked for a person.
 */
export type Effect = (typeof EFFECTS)[number];

/** Every effect class, as weft's effect table names them. */
export const EFFECTS = ["read", "write", "idempotent", "reconcilable"] as const;

/** True when `value` names an effect class. */
export function isEffect(value: unknown): value is Effect {
  return (EFFECTS as readonly unknown[]).includes(value);
}

/**
 * What weft's effect table needs beside `effect` that `def` lacks, or null: `dedupWindowMs` with
 * `idempotent`, `reconcile` with `reconcilable`. A declared effect is checked with it at build
 * (`checkToolDefinition`), a predicate's answer at each call (`judgeEffect`).
 */
export function missingForEffect(effect: unknown, def: { dedupWindowMs?: unknown; reconcile?: unknown }): string | null {
  if (effect === "idempotent" && (!Number.isInteger(def.dedupWindowMs) || (def.dedupWindowMs as number) <= 0)) return "dedupWindowMs, a positive integer of milliseconds";
  const r = def.reconcile as { lookup?: unknown; finality?: unknown } | undefined;
  if (effect === "reconcilable" && (!r || typeof r.lookup !== "function" || (r.finality !== "final" && r.finality !== "nonfinal"))) {
    return 'reconcile: { lookup, finality: "final" | "nonfinal" }';
  }
  return null;
}

/** Answer of `reconcile.lookup` (weft's effect table, `LookupResult`). */
export type LookupResult =
  | { status: "found"; value: string | ToolResult }
  | { status: "not_found" }
  | { status: "unknown" };

/** What `execute` learns about the call it is running, beyond state and args. */
export interface ToolCallContext {
  /** The call id; stable across retries and restarts. */
  readonly callId: string;
  /** `<branchId>:<callId>` (weft's effect table); send it to providers that deduplicate. */
  readonly effectKey: string;
  /** The tool's name as the call named it. */
  readonly toolName: string;
  /** 1 for the first attempt. */
  readonly attempt: number;
  /** Aborted when the thread is stopped. */
  readonly signal: AbortSignal;
  /** Identity of whoever approved this call; undefined when no approval was needed. */
  readonly approvedBy?: string;
}

/** Arguments as `execute` receives them: the schema's parsed output, defaults applied. */
export type InferArgs<Args> = Args extends z.ZodType
  ? z.output<Args>
  : Args extends JsonSchemaObject
    ? Record<string, unknown>
    : undefined;

/** The tool body (the Standard Agents tools API's `Tool`). Any thrown value becomes an error result. */
export type ToolExecute<State, Args> = Args extends null
  ? (state: State, args: undefined, call: ToolCallContext) => Promise<ToolResult>
  : (state: State, args: InferArgs<Args>, call: ToolCallContext) => Promise<ToolResult>;

/**
 * Options of `defineTool` (the Standard Agents tools API parameters plus the Agent SDK tools
 * reference and weft's effect table semantics): a tool weft runs (`execute`), or one the client
 * answers (`executionMode: "client"`, no `execute`).
 */
export type DefineToolOptions<
  State = ThreadState,
  Args extends ToolArgs | JsonSchemaObject | null = null,
  Tenvs extends ToolTenvs | null = null,
  Uses extends readonly string[] = readonly string[],
> = RunToolOptions<State, Args, Tenvs, Uses> | ClientToolOptions<State, Args, Tenvs, Uses>;

/**
 * A tool the client answers (a browser, the chat screen): when the model calls it, the call is
 * validated, journaled and parked until the client posts its result
 * (`POST /threads/:id/calls/:callId/result`); weft never runs anything for it. The build refuses
 * one with an `execute` (`invalid_config`).
 */
export type ClientToolOptions<
  State = ThreadState,
  Args extends ToolArgs | JsonSchemaObject | null = null,
  Tenvs extends ToolTenvs | null = null,
  Uses extends readonly string[] = readonly string[],
> = Omit<RunToolOptions<State, Args, Tenvs, Uses>, "execute" | "executionMode" | "executionProvider"> & {
  /** `client`: the client answers each call; see {@link ClientToolOptions}. */
  executionMode: "client";
  /** A client tool has no body on the server. */
  execute?: never;
};

/** Options of a tool weft runs, or its model's provider does (`executionMode` `local` or `provider`); see {@link DefineToolOptions}. */
export interface RunToolOptions<
  State = ThreadState,
  Args extends ToolArgs | JsonSchemaObject | null = null,
  Tenvs extends ToolTenvs | null = null,
  Uses extends readonly string[] = readonly string[],
> {
  /** Shown to the model; say what the tool does and when to use it. */
  description: string;
  /** Zod 4 object schema or plain JSON Schema object; omit for a tool without arguments. */
  args?: Args;
  /** The tool body: gets `state`, the parsed arguments and the call's context, returns a `ToolResult`; any thrown value becomes an error result. */
  execute: ToolExecute<State, Args>;
  /** Env values the tool reads; `required` ones are checked when a thread is created. */
  variables?: VariableDefinition[];
  /** Typed thread environment (the Standard Agents tools API's `Tenvs`); documentation only at run time. */
  tenvs?: Tenvs;
  /** Tools this tool may `queueTool`/`invokeTool`; enforced at run time. */
  uses?: Uses;
  /** A string argument echoed in the `tool_call_started` event. */
  progressArgument?: string;
  /** Free-form annotations (the Standard Agents tools API); weft keeps them with the definition and reads none (MCP annotations come from `effect`). */
  annotations?: Record<string, unknown>;
  /**
   * `provider`: the model's provider runs the tool itself (a provider-defined tool such as web
   * search). weft hands it to models of that provider, records each call and its result like any
   * other call, replays both in later requests, and never runs `execute`; a plain call to it (from
   * a model that cannot run it) gets an error result. Default `local`.
   */
  executionMode?: "local" | "provider";
  /**
   * Required with `executionMode: "provider"`: the provider (`"openai"`, meaning the provider tool
   * `openai.<tool name>`), or the provider tool's full id (`"anthropic.web_search_20250305"`).
   */
  executionProvider?: string;
  /** Effect class or a predicate over the parsed input; undeclared means `write`. */
  effect?: Effect | ((input: InferArgs<Args>) => Effect);
  /** Result returned instead of running a write in a dry-run thread. */
  dryRunResult?: (input: InferArgs<Args>) => string | ToolResult | Promise<string | ToolResult>;
  /** Input names carrying time bounds, checked against a thread's `asOf`. */
  timeArgs?: readonly string[];
  /** Whether a person must approve the call before it runs. */
  needsApproval?: boolean | ((input: InferArgs<Args>, state: State) => boolean | Promise<boolean>);
  /** Schema a successful `result` (parsed as JSON when it parses) must satisfy. */
  outputSchema?: SchemaInput;
  /**
   * Check JSON Schema `format` (`email`, `date-time`, ...) in `args` and `outputSchema`. Off by
   * default: JSON Schema 2019-09 and 2020-12 make `format` an annotation unless asked to assert it.
   */
  formatAssertion?: boolean;
  /** Provider deduplication window in milliseconds; required exactly when `effect` is idempotent. */
  dedupWindowMs?: number;
  /** Required exactly when `effect` is reconcilable. */
  reconcile?: { lookup: (effectKey: string, state: State) => Promise<LookupResult>; finality: "final" | "nonfinal" };
  /** A successful result ends the turn with no further model call. */
  endsTurn?: boolean;
  /** Attempts for transient failures of read/idempotent calls; default 3. */
  maxAttempts?: number;
  /**
   * Deadline of one attempt of `execute`, in milliseconds; default 60 000 (`WEFT_CALL_TIMEOUT_MS`).
   * Past it a read or idempotent attempt counts as a transient failure (retried); any other call
   * ends with an error saying its outcome is unknown. The call's `signal` fires either way.
   */
  timeoutMs?: number;
}

/** What `defineTool` returns: the options, marked, with no side effects. */
export type ToolDefinition<
  State = ThreadState,
  Args extends ToolArgs | JsonSchemaObject | null = null,
  Tenvs extends ToolTenvs | null = null,
  Uses extends readonly string[] = readonly string[],
> = DefineToolOptions<State, Args, Tenvs, Uses> & {
  /** Set by `defineTool`: what the registry checks a file under `agents/tools/` exports. */
  readonly kind: "tool";
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any
/** A tool definition with its type parameters erased, as the registry holds it. */
export type AnyToolDefinition = ToolDefinition<any, any, any, any>;
