/**
 * A JSON Schema, compiled once at definition and validated with `@cfworker/json-schema` (made for
 * Workers: no `eval`, no `new Function`). Draft from `$schema`, default 2020-12.
 * @module
 */
import { type OutputUnit, type Schema as CfSchema, dereference, validate as cfValidate } from "@cfworker/json-schema";
import { type Draft, type SchemaPath, SchemaRefusal, linkSchema, pointerOf } from "./link.js";

/** The refusal a schema weft cannot honour throws, and the JSON Pointer form of a schema path (src/tools/json-schema/link.ts). */
export { SchemaRefusal, pointerOf } from "./link.js";

/** `$schema` URIs of the drafts weft validates (with and without the trailing `#`). */
const DRAFTS: Record<string, Draft> = {
  "http://json-schema.org/draft-04/schema": "4",
  "http://json-schema.org/draft-07/schema": "7",
  "https://json-schema.org/draft/2019-09/schema": "2019-09",
  "https://json-schema.org/draft/2020-12/schema": "2020-12",
};

/** Values nested deeper than this are refused before validation (validation recurses per level). */
export const MAX_VALUE_DEPTH = 256;

/** One validation failure: where in the value (`path`, keys and indexes) and why. */
export interface SchemaIssue {
  path: (string | number)[];
  message: string;
  /** The JSON Schema keyword (or Zod issue code) that failed. */
  keyword?: string;
}

/** At most this many issues are reported for one value (a value can fail at every one of its members). */
export const MAX_ISSUES = 20;
/**
 * Most `$ref`s one check follows before it gives up, unless the value is larger (then
 * {@link REF_STEPS_PER_CHAR} per character of its JSON): refusal at definition bounds what one
 * value can cost in place, but `$ref`s that step into the value (`items`, `properties`,
 * `contains`...) under an `anyOf` can still double the work at each level of a small value.
 */
export const MAX_REF_STEPS = 20_000;
const REF_STEPS_PER_CHAR = 20;
/**
 * Above this product of the value's and the schema's JSON lengths (characters), an invalid value
 * is explained by the first failure found alone: every failure's message can quote the schema,
 * so explaining all of them costs up to that product in memory (a 9 KB answer under a 40 KB
 * enum made 39 MB of messages).
 */
const FULL_EXPLANATION_BUDGET = 1 << 24;

/**
 * `issues` as reported: the first {@link MAX_ISSUES}. Messages are not cut (a cut could leave part
 * of a secret the redactor would match whole); a long `enum` or `const` is quoted short instead.
 */
export function boundedIssues<I>(issues: readonly I[]): I[] {
  return issues.length > MAX_ISSUES ? issues.slice(0, MAX_ISSUES) : [...issues];
}

/** Thrown when one check follows more `$ref`s than {@link MAX_REF_STEPS} allows. */
class TooManySteps extends Error {}

/** A compiled JSON Schema. */
export interface CompiledJsonSchema {
  readonly draft: Draft;
  /** Checks `value`; on success returns a copy with valid `default`s filled in. */
  validate(value: unknown): { ok: true; data: unknown } | { ok: false; issues: SchemaIssue[] };
  /** Defaults that fail their own subschema and are therefore not applied. */
  readonly warnings: string[];
}

/**
 * Compiles a JSON Schema document.
 * @param options.assertFormat when true, `format` is checked; otherwise (2019-09/2020-12 rules) it is an annotation.
 * @throws SchemaRefusal naming the keyword for an unknown `$schema`, a remote `$ref`, an unsupported keyword or a `$ref` loop.
 */
export function compileJsonSchema(schema: Record<string, unknown> | boolean, options: { assertFormat?: boolean } = {}): CompiledJsonSchema {
  const declared = typeof schema === "object" ? schema.$schema : undefined;
  let draft: Draft = "2020-12";
  if (declared !== undefined) {
    const known = typeof declared === "string" ? DRAFTS[declared.replace(/#$/, "")] : undefined;
    if (!known) throw new SchemaRefusal("$schema", `$schema ${JSON.stringify(declared)} is not a draft weft validates (draft-04, draft-07, 2019-09, 2020-12); a custom metaschema would have to be fetched`, ["$schema"], "remote metaschema, not fetched");
    draft = known;
  }
  const assertFormat = options.assertFormat ?? (draft === "4" || draft === "7");
  const linked = linkSchema(schema, draft, { assertFormat });
  const root = linked.root as CfSchema;
  const lookup = dereference(root);
  // Every `$ref` the validator follows reads the lookup: counted, within a budget per check.
  let steps = 0;
  let allowed = MAX_REF_STEPS;
  let checked: unknown;
  const counted = new Proxy(lookup, {
    get(target, key) {
      if (++steps > allowed) {
        // The budget grows with the value (read once, only when a check gets this far).
        const grown = Math.max(MAX_REF_STEPS, (JSON.stringify(checked)?.length ?? 0) * REF_STEPS_PER_CHAR);
        if (grown <= allowed) throw new TooManySteps(`checking the value followed more than ${allowed} $refs`);
        allowed = grown;
      }
      return target[key as string];
    },
  });
  const check = (value: unknown, shortCircuit: boolean, against: CfSchema = root) => {
    steps = 0;
    allowed = MAX_REF_STEPS;
    checked = value;
    return cfValidate(value, against, draft, counted, shortCircuit);
  };
  // Short-circuit: the verdict, with the failure that decided it (see `explained`).
  const run = (value: unknown) => check(value, true);
  const schemaChars = JSON.stringify(schema).length;
  /** Every failure of an invalid value when that is affordable, else the one `verdict` found; bounded. */
  const explained = (value: unknown, verdict: { errors: OutputUnit[] }): SchemaIssue[] => {
    const affordable = (JSON.stringify(value)?.length ?? 0) * schemaChars <= FULL_EXPLANATION_BUDGET;
    return boundedIssues(issuesOf(affordable ? check(value, false).errors : verdict.errors, value));
  };

  const warnings: string[] = [];
  const valid = new WeakSet<object>();
  for (const { node, path } of linked.defaults) {
    // `default` is an annotation: the node checks its own default as it is. A copy without it
    // would lose the absolute URI `dereference` gave the node, so a `$ref` beside the default
    // (as Pydantic writes a field whose type is a model or an enum) could not resolve.
    const value = node.default;
    // Within the same budget as a check of a value: a schema's own default cannot cost more.
    let checked: ReturnType<typeof check>;
    try {
      checked = check(value, false, node as CfSchema);
    } catch (e) {
      if (!(e instanceof TooManySteps)) throw e;
      checked = { valid: false, errors: [{ instanceLocation: "#", keyword: "$ref", keywordLocation: "#", error: `the schema costs too much to check against it (${e.message})` }] };
    }
    if (checked.valid) valid.add(node);
    else {
      delete node.default;
      const why = (issuesOf(checked.errors, value)[0]?.message ?? "invalid").replace(/^input: /, "");
      warnings.push(`${pointerOf([...path, "default"]).slice(2)} is ${JSON.stringify(value)}, which its own schema refuses (${why}); it is not applied`);
    }
  }
  const table = (root.$defs ?? {}) as Record<string, CfSchema | boolean>;

  return {
    draft,
    warnings,
    validate(value) {
      const deep = depthExceeds(value, MAX_VALUE_DEPTH);
      if (deep) return { ok: false, issues: [{ path: deep, message: `${formatPath(deep)}: nested deeper than ${MAX_VALUE_DEPTH} levels`, keyword: "depth" }] };
      try {
        const first = run(value);
        if (!first.valid) return { ok: false, issues: explained(value, first) };
        const data = structuredClone(value);
        if (!applyDefaults(data, root, table, valid)) return { ok: true, data };
        const second = run(data);
        if (second.valid) return { ok: true, data };
        return { ok: false, issues: explained(data, second).map((i) => ({ ...i, message: `${i.message} (after applying defaults)` })) };
      } catch (e) {
        if (e instanceof RangeError) return { ok: false, issues: [{ path: [], message: "input: too deeply nested to validate", keyword: "depth" }] };
        if (e instanceof TooManySteps) return { ok: false, issues: [{ path: [], message: `input: the schema costs too much to check against this value (${e.message})`, keyword: "$ref" }] };
        // Definition refuses what it can foresee (a pattern that does not compile); anything
        // else the validator throws is this call's error, never its model step's or its siblings'.
        return { ok: false, issues: [{ path: [], message: `input: the schema could not be evaluated (${e instanceof Error ? e.message : String(e)})`, keyword: "schema" }] };
      }
    },
  };
}

/** The path of the first value nested deeper than `limit`, found without recursion. */
function depthExceeds(value: unknown, limit: number): (string | number)[] | null {
  const stack: { value: unknown; path: (string | number)[] }[] = [{ value, path: [] }];
  while (stack.length > 0) {
    const { value: v, path } = stack.pop()!;
    if (typeof v !== "object" || v === null) continue;
    if (path.length >= limit) return path;
    if (Array.isArray(v)) v.forEach((child, i) => stack.push({ value: child, path: [...path, i] }));
    else for (const [key, child] of Object.entries(v)) stack.push({ value: child, path: [...path, key] });
  }
  return null;
}

/** Fills in missing properties from valid defaults, following `$ref` and `allOf`; true when any was added. */
function applyDefaults(value: unknown, schema: CfSchema | boolean, table: Record<string, CfSchema | boolean>, valid: WeakSet<object>, depth = 0): boolean {
  if (typeof schema !== "object" || value === null || typeof value !== "object" || depth > MAX_VALUE_DEPTH) return false;
  let added = false;
  // Linked `$ref`s all name an entry of the root's `$defs` table (`#/$defs/<key>`).
  const referenced = (s: CfSchema): CfSchema | boolean | undefined => (typeof s.$ref === "string" ? table[s.$ref.slice("#/$defs/".length)] : undefined);
  /** The node whose default a missing property takes: the first along its `$ref` chain that has one. */
  const withDefault = (s: CfSchema | boolean): CfSchema | boolean => {
    let current = s;
    for (let hops = 0; typeof current === "object" && !("default" in current) && hops < 64; hops++) {
      const next = referenced(current);
      if (next === undefined) break;
      current = next;
    }
    return current;
  };
  // A value given for a node with a `$ref` takes the defaults of what it refers to, whatever default sits beside the `$ref`.
  const target = referenced(schema);
  if (target !== undefined) added = applyDefaults(value, target, table, valid, depth + 1) || added;
  for (const part of schema.allOf ?? []) added = applyDefaults(value, part, table, valid, depth + 1) || added;
  if (Array.isArray(value)) {
    const prefix = (schema.prefixItems ?? []) as (CfSchema | boolean)[];
    value.forEach((item, i) => {
      const s = i < prefix.length ? prefix[i] : schema.items;
      if (s !== undefined && !Array.isArray(s)) added = applyDefaults(item, s, table, valid, depth + 1) || added;
    });
    return added;
  }
  const object = value as Record<string, unknown>;
  for (const [name, sub] of Object.entries(schema.properties ?? {})) {
    if (Object.hasOwn(object, name)) {
      added = applyDefaults(object[name], sub, table, valid, depth + 1) || added;
      continue;
    }
    const resolved = withDefault(sub);
    if (typeof resolved === "object" && "default" in resolved && valid.has(resolved)) {
      // Defined, not assigned: assigning "__proto__" would set the value's prototype instead of the key.
      Object.defineProperty(object, name, { value: structuredClone(resolved.default), writable: true, enumerable: true, configurable: true });
      added = true;
    }
  }
  return added;
}

/** Renders a value path as `items[0].name`; the root is `root` (a tool's `input`, a request's `body`). */
export function formatPath(path: readonly PropertyKey[], root = "input"): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else out += out === "" ? String(key) : `.${String(key)}`;
  }
  return out === "" ? root : out;
}

/** Wrapper keywords whose failure is explained by their subschemas' own errors. */
const WRAPPERS = new Set(["$ref", "allOf", "properties", "patternProperties", "additionalProperties", "items", "prefixItems", "additionalItems", "unevaluatedProperties", "unevaluatedItems", "dependentSchemas", "dependencies", "if", "propertyNames", "contains"]);
/** Keywords whose subschemas are alternatives: their own failure is the explanation. */
const ALTERNATIVES = new Set(["anyOf", "oneOf", "not", "contains"]);

/** Turns validator output into issues: the innermost failures, each with its value path. */
function issuesOf(errors: readonly OutputUnit[], value: unknown): SchemaIssue[] {
  const kept = errors.filter((e) => {
    const under = (other: OutputUnit) => other !== e && other.keywordLocation.startsWith(`${e.keywordLocation}/`);
    const insideAlternative = errors.some((o) => ALTERNATIVES.has(o.keyword) && e !== o && e.keywordLocation.startsWith(`${o.keywordLocation}/`));
    if (insideAlternative) return false;
    return !(WRAPPERS.has(e.keyword) && errors.some(under));
  });
  const issues = (kept.length > 0 ? kept : errors).map((e) => {
    const path = pathOf(e.instanceLocation, value);
    const missing = e.keyword === "required" ? /property "(.*)"/.exec(e.error)?.[1] : undefined;
    if (missing !== undefined) path.push(missing);
    return { path, message: `${formatPath(path)}: ${describe(e)}`, keyword: e.keyword };
  });
  const seen = new Set<string>();
  return issues.filter((i) => (seen.has(i.message) ? false : (seen.add(i.message), true)));
}

/** `#/a/0/b` -> `["a", 0, "b"]`, indexes as numbers where the value holds an array. */
function pathOf(location: string, value: unknown): (string | number)[] {
  const tokens = location.replace(/^#\/?/, "");
  if (tokens === "") return [];
  const path: (string | number)[] = [];
  let current = value;
  for (const raw of tokens.split("/")) {
    const token = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (Array.isArray(current)) {
      path.push(Number(token));
      current = current[Number(token)];
    } else {
      path.push(token);
      current = current !== null && typeof current === "object" ? (current as Record<string, unknown>)[token] : undefined;
    }
  }
  return path;
}

function describe(error: OutputUnit): string {
  const m = /Instance type "(\w+)" is invalid\. Expected "(.+)"\./.exec(error.error);
  if (m) return `expected ${m[2]!.split('", "').join(" or ")}, received ${m[1]}`;
  if (error.keyword === "false") return "not allowed here";
  const required = /Instance does not have required property "(.*)"\./.exec(error.error);
  if (required) return `missing required property "${required[1]}"`;
  return error.error.replace(/^Instance /, "value ").replace(/\.$/, "");
}
