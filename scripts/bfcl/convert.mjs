/**
 * BFCL function definitions -> weft tools: tool names that obey weft's rule (and a table back to
 * the original names), and BFCL's Python-flavoured schemas -> standard JSON Schema (draft 2020-12).
 * Pure functions, no I/O; used only by the bfcl harness and its tests.
 * @module
 */

/** weft's tool-name rule (DESIGN.md, "Authoring surface"). */
export const TOOL_NAME_RULE = /^[a-z][a-z0-9_]{0,63}$/;

/** Thrown when a schema uses something the converter cannot map faithfully; names the path. */
export class ConversionError extends Error {
  /** @param {string} path where in the schema, e.g. `parameters.properties.age` @param {string} message */
  constructor(path, message) {
    super(`${path}: ${message}`);
    this.name = "ConversionError";
    this.path = path;
  }
}

/**
 * Maps one function name onto the tool-name rule: camelCase splits at the case change, every run
 * of other characters (`.`, `-`, spaces) becomes one `_`, a leading non-letter gets `fn_`, and
 * the result is cut to 64 characters. Lossy on purpose; {@link mapToolNames} keeps the table back.
 * @example toToolName("uber.ride") === "uber_ride"; toToolName("getWeather") === "get_weather"
 * @param {string} name
 * @returns {string} a name matching {@link TOOL_NAME_RULE}
 */
export function toToolName(name) {
  let s = String(name)
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2") // getWeather -> get_Weather
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1_$2") // XMLParser -> XML_Parser
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
  if (!/^[a-z]/.test(s)) s = s === "" ? "fn" : `fn_${s}`;
  return trimTo(s, 64);
}

/** Cuts `s` to `max` characters without leaving a trailing `_`. */
function trimTo(s, max) {
  return s.length <= max ? s : s.slice(0, max).replace(/_+$/, "");
}

/**
 * Maps every function name of one case to a distinct tool name and back. Deterministic: names are
 * taken in the given order; a later name whose tool name is taken gets `_2`, `_3`, ... (still
 * within 64 characters). A name listed twice maps to the same tool (the first definition wins).
 * @param {readonly string[]} names original BFCL function names, in case order
 * @returns {{ toTool: Map<string, string>, toOriginal: Map<string, string> }}
 */
export function mapToolNames(names) {
  const toTool = new Map();
  const toOriginal = new Map();
  for (const name of names) {
    if (toTool.has(name)) continue;
    const base = toToolName(name);
    let candidate = base;
    for (let k = 2; toOriginal.has(candidate); k++) {
      const suffix = `_${k}`;
      candidate = trimTo(base, 64 - suffix.length) + suffix;
    }
    toTool.set(name, candidate);
    toOriginal.set(candidate, name);
  }
  return { toTool, toOriginal };
}

// BFCL / Python / Java spellings -> JSON Schema types; `null` here means "no type restriction".
const TYPE_NAMES = new Map(
  Object.entries({
    dict: "object", object: "object", map: "object", hashmap: "object",
    float: "number", double: "number", number: "number",
    integer: "integer", int: "integer", long: "integer", short: "integer", byte: "integer",
    string: "string", str: "string", char: "string",
    boolean: "boolean", bool: "boolean",
    array: "array", list: "array", tuple: "array", arraylist: "array",
    null: "null", none: "null", nonetype: "null",
    any: null,
  }),
);

/**
 * Maps one BFCL type name (any capitalisation) to a JSON Schema type, or `null` for `any`.
 * @param {unknown} name @param {string} path
 * @throws ConversionError for names it does not know (rather than guessing a meaning)
 */
export function mapTypeName(name, path) {
  if (typeof name !== "string") throw new ConversionError(path, `type must be a string, got ${JSON.stringify(name)}`);
  const mapped = TYPE_NAMES.get(name.toLowerCase());
  if (mapped === undefined) throw new ConversionError(path, `unknown type "${name}"`);
  return mapped;
}

/** True when a BFCL `optional` flag says the property may be left out (`true` or `"true"`). */
function isOptionalFlag(value) {
  return value === true || (typeof value === "string" && value.trim().toLowerCase() === "true");
}

const SCHEMA_MAPS = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];
const SCHEMA_LISTS = ["anyOf", "oneOf", "allOf", "prefixItems"];
const SCHEMA_SINGLES = ["additionalProperties", "not", "contains", "propertyNames", "if", "then", "else"];

/**
 * Converts one BFCL schema node (and everything under it) to standard JSON Schema. Keeps every
 * standard keyword (`default`, `enum`, `required`, `description`, bounds, `format`); rewrites
 * `type`; turns tuple-form `items: [...]` into `prefixItems`; folds `optional` flags and
 * draft-3 boolean `required` into the parent's `required` list and drops them.
 * @param {unknown} node a BFCL schema node
 * @param {string} [path] for error messages
 * @returns {Record<string, unknown>} a fresh object; the input is not modified
 * @throws ConversionError on unknown type names or non-object schema nodes
 */
export function convertSchema(node, path = "parameters") {
  if (typeof node === "boolean") return /** @type {any} */ (node);
  if (typeof node !== "object" || node === null || Array.isArray(node)) {
    throw new ConversionError(path, `a schema must be an object, got ${JSON.stringify(node)}`);
  }
  /** @type {Record<string, unknown>} */
  const out = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "optional") continue; // folded into the parent's `required` below
    if (key === "required" && !Array.isArray(value)) continue; // draft-3 flag, folded likewise
    if (key === "type") {
      const types = (Array.isArray(value) ? value : [value]).map((t) => mapTypeName(t, `${path}.type`));
      if (types.includes(null)) continue; // `any`: no restriction at all
      const unique = [...new Set(types)];
      out.type = unique.length === 1 ? unique[0] : unique;
    } else if (key === "items") {
      if (Array.isArray(value)) out.prefixItems = value.map((s, i) => convertSchema(s, `${path}.items[${i}]`));
      else out.items = convertSchema(value, `${path}.items`);
    } else if (SCHEMA_MAPS.includes(key) && isPlainObject(value)) {
      out[key] = Object.fromEntries(
        Object.entries(value).map(([name, s]) => [name, convertSchema(s, `${path}.${key}.${name}`)]),
      );
    } else if (SCHEMA_LISTS.includes(key) && Array.isArray(value)) {
      out[key] = value.map((s, i) => convertSchema(s, `${path}.${key}[${i}]`));
    } else if (SCHEMA_SINGLES.includes(key) && (isPlainObject(value) || typeof value === "boolean")) {
      out[key] = convertSchema(value, `${path}.${key}`);
    } else {
      out[key] = structuredClone(value);
    }
  }
  if (isPlainObject(node.properties)) out.required = foldRequired(node);
  if (Array.isArray(out.required) && out.required.length === 0) delete out.required;
  return out;
}

/** The `required` list of an object node after applying its properties' flags. */
function foldRequired(node) {
  const required = new Set(Array.isArray(node.required) ? node.required.filter((r) => typeof r === "string") : []);
  for (const [name, prop] of Object.entries(node.properties)) {
    if (!isPlainObject(prop)) continue;
    if (prop.required === true) required.add(name);
    if (isOptionalFlag(prop.optional)) required.delete(name);
  }
  return [...required];
}

/**
 * Converts a function's `parameters` to a tool's args schema: always an object at the root
 * (weft requires `"type": "object"`), even when BFCL leaves the type out.
 * @param {unknown} parameters
 * @returns {Record<string, unknown>}
 * @throws ConversionError when the root is not an object schema
 */
export function convertParameters(parameters) {
  const schema = convertSchema(parameters ?? { type: "dict", properties: {} });
  if (schema.type === undefined) schema.type = "object";
  if (schema.type !== "object") throw new ConversionError("parameters", `root type must be dict/object, got ${JSON.stringify(schema.type)}`);
  return schema;
}

/**
 * Converts all functions of one case to weft tool definitions, with the name tables.
 * @param {ReadonlyArray<{ name: string, description?: string, parameters?: unknown }>} functions
 * @returns {{ tools: Array<{ name: string, description: string, parameters: Record<string, unknown> }>,
 *   toTool: Map<string, string>, toOriginal: Map<string, string> }}
 * @throws ConversionError naming the function and path
 */
export function convertFunctions(functions) {
  const { toTool, toOriginal } = mapToolNames(functions.map((f) => f.name));
  const tools = [];
  for (const fn of functions) {
    const name = toTool.get(fn.name);
    if (tools.some((t) => t.name === name)) continue; // duplicate definition: first wins
    try {
      tools.push({ name, description: String(fn.description ?? ""), parameters: convertParameters(fn.parameters) });
    } catch (err) {
      if (err instanceof ConversionError) throw new ConversionError(`${fn.name}.${err.path}`, err.message.slice(err.path.length + 2));
      throw err;
    }
  }
  return { tools, toTool, toOriginal };
}

/** @param {unknown} v @returns {v is Record<string, any>} */
export function isPlainObject(v) {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
