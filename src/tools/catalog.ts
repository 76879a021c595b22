/**
 * A thread's tools, compiled once: parsed-input schema, model-facing JSON Schema, output schema and
 * effect. The listing of `GET /v1/tools` and its `configHash` come from here.
 * @module
 */
import { WeftError, echoedValue, quotedValue } from "../errors.js";
import { checkToolDefinition } from "./define.js";
import { type CompiledSchema, compileSchema } from "./schema.js";
import type { AnyToolDefinition, Effect } from "./types.js";

const NO_ARGS: Record<string, unknown> = { type: "object", properties: {}, additionalProperties: false };

/** A checked tool, ready for dispatch. */
export interface CompiledTool {
  readonly name: string;
  readonly def: AnyToolDefinition;
  /** Null for a tool without `args`: its input must be an empty object. */
  readonly args: CompiledSchema | null;
  readonly inputSchema: Record<string, unknown>;
  readonly output: CompiledSchema | null;
  readonly outputSchema: Record<string, unknown> | null;
  /** Definition problems that do not refuse the tool (defaults that fail their own schema). */
  readonly warnings: readonly string[];
  /** The declared effect as listed: a class, `predicate`, or `write` when undeclared. */
  readonly declaredEffect: Effect | "predicate";
}

/** One entry of `GET /v1/tools`. */
export interface ToolListing {
  /** The tool's name: its file name under `agents/tools/`. */
  name: string;
  /** What the model is told the tool does. */
  description: string;
  /** JSON Schema of the input, as the model sees it. */
  inputSchema: Record<string, unknown>;
  /** JSON Schema a success's result is checked against, or null when the tool declares none. */
  outputSchema: Record<string, unknown> | null;
  /**
   * The declared effect; `predicate` when it depends on the input, `write` when undeclared. For a
   * client or provider tool too it is the class its calls are judged under (a dry run stubs all but
   * `read`), though weft runs nothing of them.
   */
  effect: Effect | "predicate";
  /**
   * Who runs a call when weft does not: `client` (the thread's chat client answers the model's call,
   * `POST /threads/:id/calls/:callId/result`) or `provider` (the model's provider); absent for a
   * tool weft runs. Only a model can call either: a direct or MCP call is `tool_not_callable`.
   */
  executionMode?: "client" | "provider";
  /** Whether a success ends the turn with no further model call. */
  endsTurn: boolean;
  /** Whether a call waits for a person's approval first; `predicate` when it depends on the input. */
  needsApproval: boolean | "predicate";
}

/**
 * Checks and compiles one definition.
 * @throws WeftError `invalid_config` naming the tool and the rule (pairing rules of weft's effect table included).
 */
export function compileTool(name: string, def: unknown): CompiledTool {
  checkToolDefinition(name, def);
  const options = schemaOptions(def);
  const args = def.args === undefined || def.args === null ? null : compileSchema(name, "args", def.args, options);
  const output = compileOutputSchema(name, def);
  const inputSchema = args ? args.jsonSchema : NO_ARGS;
  const effect = def.effect;
  return {
    name,
    def,
    args,
    inputSchema,
    output,
    outputSchema: output ? output.jsonSchema : null,
    warnings: [...(args?.warnings ?? []), ...(output?.warnings ?? [])],
    declaredEffect: typeof effect === "function" ? "predicate" : (effect ?? "write"),
  };
}

/** The options a definition's schemas compile with. */
function schemaOptions(def: Pick<AnyToolDefinition, "formatAssertion">): { assertFormat?: boolean } {
  return def.formatAssertion === true ? { assertFormat: true } : {};
}

/**
 * A definition's `outputSchema` compiled as {@link compileTool} compiles it (stage 9 of the pipeline
 * checks results with it); null when it declares none. Also what a remote tool's listing tries
 * first (src/remote/servers.ts), so a schema is judged by this one rule wherever it comes from.
 * @throws WeftError `invalid_config` naming the tool, `outputSchema` and the keyword weft refuses.
 */
export function compileOutputSchema(name: string, def: Pick<AnyToolDefinition, "outputSchema" | "formatAssertion">): CompiledSchema | null {
  const schema = def.outputSchema;
  if (schema === undefined) return null;
  const options = schemaOptions(def);
  if (typeof schema !== "object" || schema === null) return compileSchema(name, "outputSchema", schema, options);
  // Compiled once per schema object, name and options: a remote listing's check and the catalog
  // it feeds compile the same object under the same name.
  return once(compiledOutputs, schema, `${options.assertFormat === true}:${name}`, () => compileSchema(name, "outputSchema", schema, options));
}

/** {@link compileOutputSchema}'s results by schema object (weakly: a schema goes with its definition); a failure is not kept. */
const compiledOutputs = new WeakMap<object, Map<string, CompiledSchema>>();

/** `make()` once per object and key, kept in `cache` (weakly by object); a throw is not kept. */
function once<T>(cache: WeakMap<object, Map<string, T>>, of: object, key: string, make: () => T): T {
  let byKey = cache.get(of);
  const kept = byKey?.get(key);
  if (kept) return kept;
  const made = make();
  if (!byKey) cache.set(of, (byKey = new Map()));
  byKey.set(key, made);
  return made;
}

/**
 * Compiled tools by definition and name, shared by every catalog in the isolate: each thread's
 * Durable Object would otherwise compile (and keep) its own copy of every tool it calls, where a
 * definition compiles to the same tool wherever it is offered. Keyed weakly, so a definition made
 * for one thread (a prompt or agent tool, `toolsFromArguments`) goes with it; a definition that
 * fails to compile is not kept (each use throws again).
 */
const shared = new WeakMap<object, Map<string, CompiledTool>>();

/** {@link compileTool}, once per definition and name in the isolate. */
function compiledOnce(name: string, def: unknown): CompiledTool {
  if (typeof def !== "object" || def === null) return compileTool(name, def);
  return once(shared, def, name, () => compileTool(name, def));
}

/**
 * The `available tools: a, b` part of an `unknown_tool` message (`(none)` for no names). A surface
 * that reaches fewer tools than a thread offers (the MCP server) names its own with it.
 */
export function availableTools(names: readonly string[]): string {
  return `available tools: ${names.join(", ") || "(none)"}`;
}

/** A set of tools offered together; compiles lazily and caches. */
export class ToolCatalog {
  private readonly compiled = new Map<string, CompiledTool>();

  /**
   * @param whyMissing says why a name is not here when it can (a remote MCP server that failed to
   * list its tools): added to the `unknown_tool` message, so the model and the person reading the
   * call record see the cause, not only the names on offer.
   */
  constructor(
    private readonly definitions: Readonly<Record<string, AnyToolDefinition>>,
    private readonly whyMissing: (name: string) => string | undefined = () => undefined,
  ) {}

  /** Sorted tool names. */
  names(): string[] {
    return Object.keys(this.definitions).sort();
  }

  has(name: string): boolean {
    return Object.hasOwn(this.definitions, name);
  }

  /** The definition behind `name`, unchecked; call only for a name {@link has} confirmed. */
  definition(name: string): AnyToolDefinition {
    return this.definitions[name]!;
  }

  /**
   * The compiled tool.
   * @throws WeftError `unknown_tool` listing the valid names; `invalid_config` for a bad definition.
   */
  get(name: string): CompiledTool {
    const cached = this.compiled.get(name);
    if (cached) return cached;
    if (!this.has(name)) {
      const names = this.names();
      const why = this.whyMissing(name);
      throw new WeftError("unknown_tool", `unknown tool ${quotedValue(name)}; ${availableTools(names)}${why ? `; ${why}` : ""}`, {
        toolName: echoedValue(name),
        available: names,
      });
    }
    const tool = compiledOnce(name, this.definitions[name]);
    this.compiled.set(name, tool);
    return tool;
  }

  /**
   * Every usable tool as `GET /v1/tools` lists it, sorted by name. A dynamically defined tool
   * that breaks a rule is left out here, named by {@link unavailable}, and refused with
   * `invalid_config` when called.
   */
  list(): ToolListing[] {
    return this.names().flatMap((name) => {
      let tool: CompiledTool;
      try {
        tool = this.get(name);
      } catch {
        return [];
      }
      const approval = tool.def.needsApproval;
      const mode = tool.def.executionMode;
      return {
        name,
        description: tool.def.description,
        inputSchema: tool.inputSchema,
        outputSchema: tool.outputSchema,
        effect: tool.declaredEffect,
        endsTurn: tool.def.endsTurn === true,
        needsApproval: typeof approval === "function" ? "predicate" : approval === true,
        ...(mode === "client" || mode === "provider" ? { executionMode: mode } : {}),
      } satisfies ToolListing;
    });
  }
}

/** A tool the catalog holds but cannot offer, with why (`invalid_config: ...`). */
export interface UnavailableTool {
  name: string;
  reason: string;
}

/** The tools of `catalog` that fail to compile, sorted by name (never silently dropped). */
export function unavailableTools(catalog: ToolCatalog): UnavailableTool[] {
  return catalog.names().flatMap((name) => {
    try {
      catalog.get(name);
      return [];
    } catch (e) {
      const reason = e instanceof WeftError ? `${e.code}: ${e.message}` : String(e);
      return [{ name, reason }];
    }
  });
}

/** SHA-256 (hex) over the canonical JSON of a listing: changes whenever any tool's contract does. */
export async function configHash(listing: readonly ToolListing[]): Promise<string> {
  const bytes = new TextEncoder().encode(canonicalJson(listing));
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** JSON with object keys sorted at every level, so equal values hash equally. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
