/**
 * Static linking of a JSON Schema document: every `$ref`, `$dynamicRef`, `$id` and anchor is
 * resolved once, at definition, into one flat `$defs` table of plain schemas joined by local
 * `#/$defs/<n>` references. `@cfworker/json-schema` then validates the linked schema (it has no
 * `$dynamicRef`); the author's document is never changed.
 *
 * `$dynamicRef` (JSON Schema 2020-12 §8.2.3.2) resolves to the outermost schema resource in the
 * dynamic scope that declares the matching `$dynamicAnchor`. That choice depends only on which
 * resources the evaluation path has entered, so each subschema is linked once per set of
 * anchor bindings in force (`Scope` below), a finite set.
 * @module
 */
import { WeftError } from "../../errors.js";

/** Drafts `@cfworker/json-schema` evaluates. */
export type Draft = "4" | "7" | "2019-09" | "2020-12";

type Node = Record<string, unknown>;
type Schema = Node | boolean;

const SINGLE = ["additionalProperties", "unevaluatedProperties", "propertyNames", "not", "if", "then", "else", "contains", "additionalItems", "unevaluatedItems"];
const LIST = ["allOf", "anyOf", "oneOf", "prefixItems"];
const MAP = ["properties", "patternProperties", "dependentSchemas"];
/** Keywords that only locate or name schemas; the linked table replaces them. */
const LOCATORS = new Set(["$id", "$schema", "$anchor", "$dynamicAnchor", "$defs", "definitions", "$vocabulary", "$comment"]);
/** Keywords `@cfworker/json-schema` would evaluate with semantics weft cannot honour. */
const UNSUPPORTED = ["$recursiveRef", "$recursiveAnchor"];

/**
 * Most subschemas one document links to. Each `$dynamicAnchor` scope links what it reaches again,
 * so a few kilobytes of resources that refer to each other can link to exponentially many
 * (13 such resources took 42 s, in the Worker every user shares); real schemas link hundreds.
 */
export const MAX_LINKED_SUBSCHEMAS = 10_000;
/**
 * Most subschemas validating one value may apply to it in place through `$ref` (`allOf`, `anyOf`,
 * `oneOf`, `if`... reaching the same `$ref` along many paths): an `allOf` of two `$ref`s to the
 * next level, 22 levels deep, is 4 million checks of every value it meets.
 */
export const MAX_IN_PLACE_CHECKS = 10_000;

/** Where a subschema sits in the author's document (JSON Pointer tokens). */
export type SchemaPath = (string | number)[];

/** A linked document: a root reference and the table it points into. */
export interface LinkedSchema {
  root: Node;
  /** Linked nodes that carry a `default`, with the author's path of each. */
  defaults: { node: Node; path: SchemaPath }[];
}

/** Thrown for a schema weft refuses; `keyword` names what was refused (for counts and messages). */
export class SchemaRefusal extends Error {
  constructor(
    readonly keyword: string,
    message: string,
    readonly path: SchemaPath,
    /** A short reason for counts (`remote document, not fetched`). */
    readonly reason: string,
    /** The absolute URI of a remote document the schema refers to. */
    readonly remote?: string,
  ) {
    super(message);
  }
}

const isNode = (v: unknown): v is Node => typeof v === "object" && v !== null && !Array.isArray(v);
const isSchema = (v: unknown): v is Schema => typeof v === "boolean" || isNode(v);

function resolveUri(reference: string, base: string): string {
  const url = new URL(reference, base);
  return url.hash === "#" ? url.href.slice(0, -1) : url.href;
}

function splitUri(uri: string): [string, string] {
  const at = uri.indexOf("#");
  return at < 0 ? [uri, ""] : [uri.slice(0, at), decodeURIComponent(uri.slice(at + 1))];
}

/** Children of a schema node that are themselves schemas, with their path tokens. */
function* subschemas(node: Node, draft: Draft): Generator<[Schema, SchemaPath]> {
  for (const key of SINGLE) if (isSchema(node[key])) yield [node[key] as Schema, [key]];
  const items = node.items;
  if (isSchema(items)) yield [items, ["items"]];
  else if (Array.isArray(items) && draft !== "2020-12") for (const [i, s] of items.entries()) if (isSchema(s)) yield [s, ["items", i]];
  for (const key of LIST) {
    const list = node[key];
    if (Array.isArray(list)) for (const [i, s] of list.entries()) if (isSchema(s)) yield [s, [key, i]];
  }
  for (const key of [...MAP, "$defs", "definitions", "dependencies"]) {
    const map = node[key];
    if (isNode(map)) for (const [name, s] of Object.entries(map)) if (isSchema(s)) yield [s, [key, name]];
  }
}

interface Located {
  base: string;
  path: SchemaPath;
}

/** Every identifier a document declares: resources by URI, anchors, dynamic anchors. */
class Index {
  readonly resources = new Map<string, Schema>();
  readonly anchors = new Map<string, Node>();
  /** Per resource URI, its dynamic anchors by name. */
  readonly dynamic = new Map<string, Map<string, Node>>();
  readonly located = new Map<Node, Located>();

  constructor(
    readonly draft: Draft,
    root: Schema,
    base: string,
  ) {
    this.resources.set(base, root);
    this.visit(root, base, []);
  }

  private visit(schema: Schema, base: string, path: SchemaPath): void {
    if (!isNode(schema)) return;
    const idKey = this.draft === "4" ? "id" : "$id";
    const id = schema[idKey];
    if (typeof id === "string") {
      const uri = resolveUri(id, base);
      const [resource, fragment] = splitUri(uri);
      if (fragment !== "" && (this.draft === "4" || this.draft === "7")) this.anchors.set(uri, schema);
      else if (fragment === "") {
        base = resource;
        if (!this.resources.has(base)) this.resources.set(base, schema);
      }
    }
    this.located.set(schema, { base, path });
    for (const key of ["$anchor", "$dynamicAnchor"]) {
      const name = schema[key];
      if (typeof name !== "string") continue;
      this.anchors.set(`${base}#${name}`, schema);
      if (key === "$dynamicAnchor" && this.draft === "2020-12") {
        const names = this.dynamic.get(base) ?? new Map<string, Node>();
        names.set(name, schema);
        this.dynamic.set(base, names);
      }
    }
    for (const [child, at] of subschemas(schema, this.draft)) this.visit(child, base, [...path, ...at]);
  }

  /** The subschema a URI names, or a refusal naming the keyword that pointed at it. */
  resolve(uri: string, keyword: string, from: SchemaPath): { schema: Schema; base: string } {
    const [resource, fragment] = splitUri(uri);
    const doc = this.resources.get(resource);
    if (doc === undefined) {
      throw new SchemaRefusal(keyword, `${keyword} "${uri}" refers to a remote document, which weft does not fetch; bundle it into $defs with its $id`, from, "remote document, not fetched", resource);
    }
    let target: unknown = doc;
    if (fragment.startsWith("/")) {
      for (const raw of fragment.slice(1).split("/")) {
        const token = raw.replace(/~1/g, "/").replace(/~0/g, "~");
        target = Array.isArray(target) ? target[Number(token)] : isNode(target) && Object.hasOwn(target, token) ? target[token] : undefined;
      }
    } else if (fragment !== "") {
      target = this.anchors.get(`${resource}#${fragment}`);
    }
    if (!isSchema(target)) throw new SchemaRefusal(keyword, `${keyword} "${uri}" does not name a schema in this document`, from, "target not found");
    return { schema: target, base: (isNode(target) && this.located.get(target)?.base) || resource };
  }
}

/** Anchor bindings in force: dynamic anchor name -> the subschema it resolves to. */
type Scope = ReadonlyMap<string, Node>;

/**
 * Links `root` into one self-contained schema whose only references are `#/$defs/<n>`.
 * @throws SchemaRefusal for remote references, unsupported keywords and `$ref` loops that
 *   never reach into the value (they could only recurse forever).
 */
export function linkSchema(root: Schema, draft: Draft, options: { assertFormat: boolean }): LinkedSchema {
  const BASE = "weft:/schema";
  const index = new Index(draft, root, BASE);
  const table: Record<string, Schema> = {};
  const memo = new Map<Schema, Map<string, string>>();
  const ids = new Map<Node, number>();
  const defaults: LinkedSchema["defaults"] = [];
  const idOf = (node: Node) => ids.get(node) ?? (ids.set(node, ids.size), ids.size - 1);
  const scopeKey = (scope: Scope) => [...scope].map(([name, node]) => `${name}=${idOf(node)}`).sort().join(",");

  const enter = (scope: Scope, base: string): Scope => {
    const declared = index.dynamic.get(base);
    if (!declared) return scope;
    const next = new Map(scope);
    for (const [name, node] of declared) if (!next.has(name)) next.set(name, node);
    return next;
  };

  /** The table key for `target` linked under `scope` (entering its resource). */
  const ref = (target: Schema, base: string, scope: Scope): string => {
    const entered = enter(scope, base);
    const key = scopeKey(entered);
    const seen = memo.get(target) ?? new Map<string, string>();
    memo.set(target, seen);
    const known = seen.get(key);
    if (known) return known;
    const name = String(Object.keys(table).length);
    seen.set(key, name);
    table[name] = true;
    table[name] = link(target, base, entered);
    return name;
  };

  let linked = 0;
  const link = (schema: Schema, base: string, scope: Scope): Schema => {
    if (!isNode(schema)) return schema;
    const here = index.located.get(schema) ?? { base, path: [] };
    if (++linked > MAX_LINKED_SUBSCHEMAS) {
      throw new SchemaRefusal("$dynamicAnchor", `the schema links to more than ${MAX_LINKED_SUBSCHEMAS} subschemas (each $dynamicAnchor scope links what it reaches again)`, here.path, "too many subschemas when linked");
    }
    if (here.base !== base) scope = enter(scope, here.base);
    base = here.base;
    for (const keyword of UNSUPPORTED) {
      if (keyword in schema) throw new SchemaRefusal(keyword, `${keyword} (JSON Schema 2019-09) is not supported; use $dynamicRef and $dynamicAnchor (2020-12)`, here.path, "not supported");
    }
    const out: Node = {};
    const refs: string[] = [];
    if (typeof schema.$ref === "string") {
      const target = index.resolve(resolveUri(schema.$ref, base), "$ref", here.path);
      refs.push(ref(target.schema, target.base, scope));
      // Drafts 4 and 7: a $ref replaces its siblings.
      if (draft === "4" || draft === "7") return { $ref: `#/$defs/${refs[0]}` };
    }
    if (typeof schema.$dynamicRef === "string" && draft === "2020-12") {
      const uri = resolveUri(schema.$dynamicRef, base);
      const initial = index.resolve(uri, "$dynamicRef", here.path);
      const fragment = splitUri(uri)[1];
      const bound = isNode(initial.schema) && initial.schema.$dynamicAnchor === fragment ? scope.get(fragment) : undefined;
      const target = bound ? { schema: bound, base: index.located.get(bound)!.base } : initial;
      refs.push(ref(target.schema, target.base, scope));
    }
    for (const [key, value] of Object.entries(schema)) {
      if (LOCATORS.has(key) || key === "$ref" || key === "$dynamicRef" || (draft === "4" && key === "id")) continue;
      if (key === "format" && !options.assertFormat) continue;
      out[key] = value;
    }
    for (const key of SINGLE) if (isSchema(schema[key])) out[key] = link(schema[key] as Schema, base, scope);
    if (isSchema(schema.items)) out.items = link(schema.items, base, scope);
    else if (Array.isArray(schema.items)) out.items = schema.items.map((s) => (isSchema(s) ? link(s, base, scope) : s));
    for (const key of LIST) {
      const list = schema[key];
      if (Array.isArray(list)) out[key] = list.map((s) => (isSchema(s) ? link(s, base, scope) : s));
    }
    for (const key of [...MAP, "dependencies"]) {
      const map = schema[key];
      if (isNode(map)) out[key] = Object.fromEntries(Object.entries(map).map(([k, s]) => [k, isSchema(s) ? link(s, base, scope) : s]));
    }
    checkPatterns(out, here.path);
    quoteShort(out);
    if (refs.length === 1) out.$ref = `#/$defs/${refs[0]}`;
    else if (refs.length === 2) out.allOf = [...((out.allOf as Schema[]) ?? []), ...refs.map((r) => ({ $ref: `#/$defs/${r}` }))];
    if ("default" in schema) defaults.push({ node: out, path: here.path });
    return out;
  };

  let rootKey: string;
  try {
    rootKey = ref(root, BASE, new Map());
  } catch (e) {
    if (e instanceof RangeError) throw new SchemaRefusal("$defs", "the schema is nested too deeply to compile", [], "nested too deeply");
    throw e;
  }
  checkLoops(table, index, memo);
  return { root: { $ref: `#/$defs/${rootKey}`, $defs: table }, defaults };
}

/**
 * Refuses a `pattern` or `patternProperties` key that is not a JavaScript regular expression with
 * the `u` flag, as the validator compiles them (JSON Schema patterns are ECMA-262 over Unicode
 * text): left in, every call would fail when the validator compiles it.
 */
function checkPatterns(node: Node, path: SchemaPath): void {
  const check = (pattern: unknown, keyword: string, at: SchemaPath) => {
    try {
      new RegExp(String(pattern), "u");
    } catch (e) {
      const why = e instanceof Error ? e.message : String(e);
      throw new SchemaRefusal(keyword, `${keyword === "pattern" ? "pattern" : "patternProperties key"} ${JSON.stringify(pattern)} is not a JavaScript regular expression with the u flag (${why}); every call would fail`, at, "pattern not a u-flag regular expression");
    }
  };
  if ("pattern" in node) check(node.pattern, "pattern", [...path, "pattern"]);
  if (isNode(node.patternProperties)) for (const key of Object.keys(node.patternProperties)) check(key, "patternProperties", [...path, "patternProperties", key]);
}

/** Longest `enum` or `const` a failure's message quotes whole, in characters of JSON. */
const QUOTED_CHARS = 200;

/**
 * The validator quotes a failed `enum` or `const` whole in each failure's message: a 40 KB enum
 * failed at a thousand places made 39 MB of messages. A long one is quoted by its start and its
 * size instead (its `toJSON`, which only `JSON.stringify` reads; matching reads the values).
 */
function quoteShort(node: Node): void {
  for (const key of ["enum", "const"]) {
    const value = node[key];
    if (value === null || typeof value !== "object") continue;
    const text = JSON.stringify(value);
    if (text.length <= QUOTED_CHARS) continue;
    const short = `${text.slice(0, QUOTED_CHARS)}... (${text.length} characters${Array.isArray(value) ? `, ${value.length} values` : ""})`;
    const copy = Array.isArray(value) ? [...value] : { ...(value as Node) };
    Object.defineProperty(copy, "toJSON", { value: () => short, enumerable: false });
    node[key] = copy;
  }
}

/** Keywords that apply a subschema to the same value (no step into the value). */
const IN_PLACE = ["allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas", "dependencies"];

/**
 * Refuses a `$ref` cycle that stays on the same value (validating it could never finish), and a
 * table whose `$ref`s apply more than {@link MAX_IN_PLACE_CHECKS} subschemas to one value.
 */
function checkLoops(table: Record<string, Schema>, index: Index, memo: Map<Schema, Map<string, string>>): void {
  const edges = (schema: Schema, out: string[]): string[] => {
    if (!isNode(schema)) return out;
    if (typeof schema.$ref === "string" && schema.$ref.startsWith("#/$defs/")) out.push(schema.$ref.slice(8));
    for (const key of IN_PLACE) {
      const value = schema[key];
      if (Array.isArray(value)) value.forEach((s) => isSchema(s) && edges(s, out));
      else if (isNode(value) && (key === "dependentSchemas" || key === "dependencies")) Object.values(value).forEach((s) => isSchema(s) && edges(s, out));
      else if (isSchema(value)) edges(value, out);
    }
    return out;
  };
  const state = new Map<string, "open" | "done">();
  // Subschemas applied in place to one value from each entry, counted as entries close (every
  // entry it refers to in place has closed before it: the graph has no cycle by then).
  const checks = new Map<string, number>();
  const close = (key: string, out: readonly string[]) => {
    let n = 1;
    for (const e of out) n = Math.min(n + checks.get(e)!, MAX_IN_PLACE_CHECKS + 1);
    if (n > MAX_IN_PLACE_CHECKS) {
      const at = authorPath(key, index, memo);
      throw new SchemaRefusal("$ref", `validating a value at ${pointerOf(at)} would apply more than ${MAX_IN_PLACE_CHECKS} subschemas to it through $ref (the same $ref reached along many paths)`, at, "too many subschemas applied in place");
    }
    checks.set(key, n);
  };
  const visit = (start: string) => {
    const stack: { key: string; next: string[]; out: readonly string[] }[] = [];
    const open = (key: string) => {
      const out = edges(table[key]!, []);
      stack.push({ key, next: [...out], out });
      state.set(key, "open");
    };
    open(start);
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const next = top.next.pop();
      if (next === undefined) {
        state.set(top.key, "done");
        close(top.key, top.out);
        stack.pop();
      } else if (state.get(next) === "open") {
        throw new SchemaRefusal("$ref", `$ref at ${pointerOf(authorPath(next, index, memo))} leads back to itself without reaching into the value, so validation could never finish`, authorPath(next, index, memo), "self-referential $ref");
      } else if (!state.has(next)) {
        open(next);
      }
    }
  };
  for (const key of Object.keys(table)) if (!state.has(key)) visit(key);
}

function authorPath(key: string, index: Index, memo: Map<Schema, Map<string, string>>): SchemaPath {
  for (const [schema, keys] of memo) {
    if ([...keys.values()].includes(key)) return (isNode(schema) && index.located.get(schema)?.path) || [];
  }
  return [];
}

/** A path as a JSON Pointer (`#/properties/a`). */
export function pointerOf(path: SchemaPath): string {
  return `#${path.map((p) => `/${String(p).replace(/~/g, "~0").replace(/\//g, "~1")}`).join("")}`;
}
