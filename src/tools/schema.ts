/**
 * Argument and output schemas: Zod 4 (validated by Zod) or JSON Schema (validated as JSON Schema
 * by `@cfworker/json-schema`), behind one interface with the model-facing JSON Schema and
 * path-naming issues. Never uses eval (Workers forbid it).
 * @module
 */
import * as z from "zod";
import { WeftError } from "../errors.js";
import { zodJsonSchema } from "./json-form.js";
import { type SchemaIssue, SchemaRefusal, boundedIssues, compileJsonSchema, formatPath, pointerOf } from "./json-schema/compile.js";
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

/** A tool's compiled argument or output schema. */
export interface CompiledSchema {
  /** Which validator answers: Zod for Zod schemas, JSON Schema for JSON Schema. */
  readonly kind: "zod" | "json-schema";
  /** The JSON Schema the model (and `GET /v1/tools`) sees. */
  readonly jsonSchema: Record<string, unknown>;
  /** Definition problems that do not refuse the tool (a `default` its own schema refuses). */
  readonly warnings: readonly string[];
  /** The parsed value (defaults applied) or the issues, each naming its path. */
  validate(value: unknown): { ok: true; data: unknown } | { ok: false; issues: SchemaIssue[] };
}

/**
 * Compiles a tool's `args` (or `outputSchema`).
 * @param options.assertFormat check `format` (JSON Schema 2019-09 and 2020-12 treat it as an annotation otherwise).
 * @param options.owner how errors name the schema's owner; default `tool "<tool>"`.
 * @throws WeftError `invalid_config` for Zod 3 schemas, non-object `args`, and JSON Schema weft
 *   cannot validate (details name the `keyword` and its `path`).
 */
export function compileSchema(
  tool: string,
  field: "args" | "outputSchema",
  schema: SchemaInput,
  options: { assertFormat?: boolean; owner?: string } = {},
): CompiledSchema {
  const owner = options.owner ?? `tool "${tool}"`;
  if (isZod3Schema(schema)) {
    throw new WeftError(
      "invalid_config",
      `${owner}: ${field} is a Zod 3 schema; weft needs Zod 4 (import { z } from "zod" with zod@^4)`,
      { tool, field },
    );
  }
  if (isZodSchema(schema)) {
    if (field === "args" && schema._zod.def.type !== "object") {
      throw new WeftError("invalid_config", `${owner}: args must be a z.object(...) schema`, { tool, field });
    }
    const json = zodJsonSchema(tool, field, schema);
    return {
      kind: "zod",
      jsonSchema: json,
      warnings: [],
      validate(value) {
        const parsed = schema.safeParse(value);
        return parsed.success ? { ok: true, data: parsed.data } : { ok: false, issues: describeIssues(parsed.error.issues) };
      },
    };
  }
  const isBoolean = typeof schema === "boolean" && field === "outputSchema";
  if (!isBoolean && (typeof schema !== "object" || schema === null || Array.isArray(schema))) {
    throw new WeftError("invalid_config", `${owner}: ${field} must be a Zod 4 schema or a JSON Schema object`, { tool, field });
  }
  if (field === "args" && (schema as { type?: unknown }).type !== "object") {
    throw new WeftError("invalid_config", `${owner}: a JSON Schema args must have "type": "object"`, { tool, field });
  }
  let json: Record<string, unknown> | boolean;
  try {
    json = JSON.parse(JSON.stringify(schema)) as Record<string, unknown> | boolean;
  } catch (cause) {
    throw new WeftError("invalid_config", `${owner}: ${field} is not JSON (${String(cause)})`, { tool, field }, { cause });
  }
  try {
    const compiled = compileJsonSchema(json, options);
    // The default draft needs no declaration; any other stays declared for the reader.
    const shown = typeof json === "boolean" ? (json ? {} : { not: {} }) : structuredClone(json);
    if (compiled.draft === "2020-12") delete shown.$schema;
    return {
      kind: "json-schema",
      jsonSchema: shown,
      warnings: compiled.warnings.map((w) => `${owner}: ${field} ${w}`),
      validate: (value) => compiled.validate(value),
    };
  } catch (cause) {
    if (!(cause instanceof SchemaRefusal)) throw cause;
    throw new WeftError(
      "invalid_config",
      `${owner}: ${field} at ${pointerOf(cause.path)}: ${cause.message}`,
      { tool, field, keyword: cause.keyword, path: cause.path, reason: cause.reason, ...(cause.remote ? { remote: cause.remote } : {}) },
      { cause },
    );
  }
}

/**
 * Converts Zod issues into `path: message` issues, the first `MAX_ISSUES` of them (`age: expected number, received string`). A
 * union none of whose branches matched, and with no message of its own, reports the one branch the
 * value got into (its every issue below the union's path: a list where text or a list was
 * allowed), so the path names the part. An issue of the whole value is named `root`.
 */
export function describeIssues(issues: readonly z.core.$ZodIssue[], root = "input"): SchemaIssue[] {
  // Every caller (arguments, outputs, request bodies, the MCP server's refusals) reports a bounded few.
  return boundedIssues(issues.flatMap(intoUnion)).map((issue) => {
    const path = issue.path.map((p) => (typeof p === "symbol" ? String(p) : p));
    const text = issue.message.replace(/^Invalid input: /, "");
    return { path, message: `${formatPath(path, root)}: ${text}`, keyword: issue.code };
  });
}

/** A failed union's issues from the one branch that got past the value's type, else the union's own issue. */
function intoUnion(issue: z.core.$ZodIssue): z.core.$ZodIssue[] {
  // A union with a message of its own says what it wants better than any one branch.
  if (issue.code !== "invalid_union" || !("errors" in issue) || issue.message !== "Invalid input") return [issue];
  const deeper = issue.errors.filter((branch) => branch.length > 0 && branch.every((i) => i.path.length > 0));
  if (deeper.length !== 1) return [issue];
  return deeper[0]!.map((i) => ({ ...i, path: [...issue.path, ...i.path] }) as z.core.$ZodIssue).flatMap(intoUnion);
}
