/**
 * BFCL function definitions -> weft tools: tool names that obey weft's rule (and a table back to
 * the original names), and BFCL's type names (`dict`, `float`, `tuple`, `any`, Java and JavaScript
 * spellings) -> JSON Schema types. Nothing else in a schema is changed.
 * Pure functions, no I/O; used only by the bfcl harness and its tests.
 * @module
 */

/** weft's tool-name rule (README "Writing a tool": the file name is the tool name). */
export const TOOL_NAME_RULE = /^[a-z][a-z0-9_]{0,63}$/;

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
 * @param {string} [prefix] put before every tool name, within the 64 characters (`--via mcp`:
 *   the `<server>__` weft puts before a remote tool's name)
 * @returns {{ toTool: Map<string, string>, toOriginal: Map<string, string> }}
 */
export function mapToolNames(names, prefix = "") {
  const toTool = new Map();
  const toOriginal = new Map();
  const room = 64 - prefix.length;
  for (const name of names) {
    if (toTool.has(name)) continue;
    const base = trimTo(toToolName(name), room);
    let candidate = prefix + base;
    for (let k = 2; toOriginal.has(candidate); k++) {
      const suffix = `_${k}`;
      candidate = prefix + trimTo(base, room - suffix.length) + suffix;
    }
    toTool.set(name, candidate);
    toOriginal.set(candidate, name);
  }
  return { toTool, toOriginal };
}

// BFCL type names -> JSON Schema types; `null` means "no type restriction". Python (simple,
// multiple, parallel, live), Java and JavaScript spellings as BFCL v4's single-turn categories use them.
const TYPE_NAMES = new Map(
  Object.entries({
    dict: "object", object: "object", map: "object", hashmap: "object", hashtable: "object",
    float: "number", double: "number", number: "number",
    integer: "integer", int: "integer", long: "integer", short: "integer", byte: "integer", bigint: "integer",
    string: "string", str: "string", char: "string",
    boolean: "boolean", bool: "boolean",
    array: "array", list: "array", tuple: "array", arraylist: "array", set: "array", queue: "array", stack: "array",
    null: "null", none: "null", nonetype: "null",
    any: null,
  }),
);

/**
 * Maps one BFCL type name (any capitalisation) to a JSON Schema type; `null` for `any` and for a
 * name it does not know (no constraint), which `onUnknown` hears about so the run can count it.
 * @param {unknown} name @param {string} path
 * @param {(note: string) => void} onUnknown
 */
export function mapTypeName(name, path, onUnknown) {
  const mapped = typeof name === "string" ? TYPE_NAMES.get(name.toLowerCase()) : undefined;
  if (mapped !== undefined) return mapped;
  onUnknown(`${path}: unknown type ${JSON.stringify(name)} read as no constraint`);
  return null;
}

const SCHEMA_MAPS = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];
const SCHEMA_LISTS = ["anyOf", "oneOf", "allOf", "prefixItems"];
const SCHEMA_SINGLES = ["items", "additionalProperties", "not", "contains", "propertyNames", "if", "then", "else"];

/**
 * Converts one BFCL schema node (and everything under it) to JSON Schema by translating type
 * names only: every other keyword stays exactly as published (`default`s that fail their own
 * schema, `optional` flags, `required` lists, descriptions, formats), so weft and the reference
 * judge the function as BFCL ships it.
 * @param {unknown} node a BFCL schema node
 * @param {string} path for notes
 * @param {(note: string) => void} onUnknown hears each unknown type name
 * @returns {unknown} a fresh value; the input is not modified
 */
export function convertSchema(node, path = "parameters", onUnknown = () => {}) {
  if (!isPlainObject(node)) return structuredClone(node);
  /** @type {Record<string, unknown>} */
  const out = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "type" && (typeof value === "string" || Array.isArray(value))) {
      const types = (Array.isArray(value) ? value : [value]).map((t) => mapTypeName(t, `${path}.type`, onUnknown));
      if (types.includes(null)) continue; // `any` or unknown: no restriction at all
      const unique = [...new Set(types)];
      out.type = unique.length === 1 ? unique[0] : unique;
    } else if (SCHEMA_MAPS.includes(key) && isPlainObject(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, s]) => [name, convertSchema(s, `${path}.${key}.${name}`, onUnknown)]));
    } else if (SCHEMA_LISTS.includes(key) && Array.isArray(value)) {
      out[key] = value.map((s, i) => convertSchema(s, `${path}.${key}[${i}]`, onUnknown));
    } else if (SCHEMA_SINGLES.includes(key)) {
      // Tuple-form `items: [...]` (older drafts) keeps its form; its members' type names convert.
      out[key] = Array.isArray(value) ? value.map((s, i) => convertSchema(s, `${path}.${key}[${i}]`, onUnknown)) : convertSchema(value, `${path}.${key}`, onUnknown);
    } else {
      out[key] = structuredClone(value);
    }
  }
  return out;
}

/**
 * Converts a function's `parameters` to a tool's args schema. BFCL roots are `"type": "dict"`;
 * weft requires an object root, so a root that is not one is reported (the function is offered
 * as published and weft lists it as unavailable).
 * @param {unknown} parameters
 * @param {(note: string) => void} onUnknown
 */
export function convertParameters(parameters, onUnknown = () => {}) {
  return /** @type {Record<string, unknown>} */ (convertSchema(parameters ?? { type: "dict", properties: {} }, "parameters", onUnknown));
}

/**
 * Converts all functions of one case to weft tool definitions, with the name tables and a note
 * per unknown type name.
 * @param {ReadonlyArray<{ name: string, description?: string, parameters?: unknown }>} functions
 * @returns {{ tools: Array<{ name: string, description: string, parameters: Record<string, unknown> }>,
 *   toTool: Map<string, string>, toOriginal: Map<string, string>, notes: string[] }}
 */
export function convertFunctions(functions, prefix = "") {
  const { toTool, toOriginal } = mapToolNames(functions.map((f) => f.name), prefix);
  const tools = [];
  const notes = [];
  for (const fn of functions) {
    const name = toTool.get(fn.name);
    if (tools.some((t) => t.name === name)) continue; // duplicate definition: first wins
    const parameters = convertParameters(fn.parameters, (note) => notes.push(`${fn.name}.${note}`));
    tools.push({ name, description: String(fn.description ?? ""), parameters });
  }
  return { tools, toTool, toOriginal, notes };
}

/** @param {unknown} v @returns {v is Record<string, any>} */
export function isPlainObject(v) {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
