/**
 * Argument and output schemas: Zod 4 or plain JSON Schema in, one Zod schema out, with the
 * model-facing JSON Schema and path-naming error messages. Never uses eval (Workers forbid it).
 * @module
 */
import * as z from "zod";
import { WeftError } from "../errors.js";
import { zodJsonSchema } from "./json-form.js";
import type { SchemaInput } from "./types.js";

// Workers refuse `new Function`; Zod's JIT would probe for it on every first parse.
z.config({ jitless: true });

/** True for a Zod 3 schema (has `_def` but no Zod 4 `_zod` internals). */
export function isZod3Schema(value: unknown): boolean {
  return typeof value === "object" && value !== null && "_def" in value && !("_zod" in value);
}

/** True for a Zod 4 schema. */
export function isZodSchema(value: unknown): value is z.ZodType {
  return typeof value === "object" && value !== null && "_zod" in value;
}

/**
 * Turns a tool's `args` (or `outputSchema`) into one Zod schema.
 * @throws WeftError `invalid_config` for Zod 3 schemas, non-object roots and unsupported JSON Schema.
 */
export function toZodSchema(tool: string, field: "args" | "outputSchema", schema: SchemaInput): z.ZodType {
  if (isZod3Schema(schema)) {
    throw new WeftError(
      "invalid_config",
      `tool "${tool}": ${field} is a Zod 3 schema; weft needs Zod 4 (import { z } from "zod" with zod@^4)`,
      { tool, field },
    );
  }
  if (isZodSchema(schema)) {
    if (field === "args" && schema._zod.def.type !== "object") {
      throw new WeftError("invalid_config", `tool "${tool}": args must be a z.object(...) schema`, { tool, field });
    }
    return schema;
  }
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) {
    throw new WeftError("invalid_config", `tool "${tool}": ${field} must be a Zod 4 schema or a JSON Schema object`, {
      tool,
      field,
    });
  }
  if (field === "args" && (schema as { type?: unknown }).type !== "object") {
    throw new WeftError("invalid_config", `tool "${tool}": a JSON Schema args must have "type": "object"`, { tool, field });
  }
  try {
    const converted = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
    checkDefaults(tool, field, schema as Record<string, unknown>, []);
    return converted;
  } catch (cause) {
    if (cause instanceof WeftError) throw cause;
    const why = cause instanceof Error ? cause.message : String(cause);
    throw new WeftError("invalid_config", `tool "${tool}": ${field} is not a usable JSON Schema: ${why}`, { tool, field }, {
      cause,
    });
  }
}

type JsonNode = Record<string, unknown>;

/**
 * A `default` that fails its own schema would hand `execute` an input the schema refuses (Zod
 * applies defaults without validating them), breaking "nothing executes before it validates".
 * @throws WeftError `invalid_config` naming the keyword path of the bad default.
 */
function checkDefaults(tool: string, field: string, node: JsonNode, path: (string | number)[]): void {
  if ("default" in node) {
    const { default: value, ...rest } = node;
    const parsed = z.fromJSONSchema(rest as Parameters<typeof z.fromJSONSchema>[0]).safeParse(value);
    if (!parsed.success) {
      const why = describeIssues(parsed.error.issues)[0]!.message.replace(/^input: /, "");
      const where = [...path, "default"].join(".");
      throw new WeftError("invalid_config", `tool "${tool}": ${field} ${where} is ${JSON.stringify(value)}, which its own schema refuses (${why})`, {
        tool,
        path: [...path, "default"],
      });
    }
  }
  const visit = (child: unknown, at: (string | number)[]) => {
    if (child && typeof child === "object" && !Array.isArray(child)) checkDefaults(tool, field, child as JsonNode, at);
  };
  for (const [name, child] of Object.entries((node.properties ?? {}) as JsonNode)) visit(child, [...path, "properties", name]);
  if (Array.isArray(node.items)) node.items.forEach((c, i) => visit(c, [...path, "items", i]));
  else visit(node.items, [...path, "items"]);
  for (const key of ["anyOf", "oneOf", "allOf", "prefixItems"]) {
    const list = node[key];
    if (Array.isArray(list)) list.forEach((c, i) => visit(c, [...path, key, i]));
  }
  visit(node.additionalProperties, [...path, "additionalProperties"]);
}

/**
 * The JSON Schema the model sees: `z.toJSONSchema(schema, { io: "input" })` without `$schema`.
 * @throws WeftError `invalid_config` for a type with no JSON form (see `zodJsonSchema`).
 */
export function toModelJsonSchema(schema: z.ZodType, tool = "(unnamed)", field: "args" | "outputSchema" = "args"): Record<string, unknown> {
  return zodJsonSchema(tool, field, schema);
}

/** One validation failure: the offending path and a message that starts with it. */
export interface SchemaIssue {
  path: (string | number)[];
  message: string;
}

/** Renders a path as `items[0].name`; the root is `input`. */
export function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return "input";
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else out += out === "" ? String(key) : `.${String(key)}`;
  }
  return out === "" ? "input" : out;
}

/** Converts Zod issues into `path: message` lines (`age: expected number, received string`). */
export function describeIssues(issues: readonly z.core.$ZodIssue[]): SchemaIssue[] {
  return issues.map((issue) => {
    const path = issue.path.map((p) => (typeof p === "symbol" ? String(p) : p));
    const text = issue.message.replace(/^Invalid input: /, "");
    return { path, message: `${formatPath(path)}: ${text}` };
  });
}

/**
 * Validates `value` against `schema`.
 * @returns the parsed output (defaults applied) or the issues, each naming its path.
 */
export function validate(
  schema: z.ZodType,
  value: unknown,
): { ok: true; data: unknown } | { ok: false; issues: SchemaIssue[] } {
  const parsed = schema.safeParse(value);
  if (parsed.success) return { ok: true, data: parsed.data };
  return { ok: false, issues: describeIssues(parsed.error.issues) };
}
