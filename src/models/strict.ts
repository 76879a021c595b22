/**
 * Strict function schemas, for providers that require them (OpenAI `strict: true`): every key
 * required, optional keys made nullable, `additionalProperties: false`, and keywords strict mode
 * refuses moved into the description. The model then answers `null` for a key it leaves out;
 * {@link fromStrictArguments} maps that `null` back to an absent key, only where the key was
 * optional and `null` was not a value the original schema accepts, so defaults still apply.
 * @module
 */

type Schema = Record<string, unknown>;

/** Keywords OpenAI's strict mode refuses; they move into the description as text. */
const MOVED_KEYWORDS = [
  "default",
  "minLength",
  "maxLength",
  "minProperties",
  "maxProperties",
  "patternProperties",
  "propertyNames",
  "unevaluatedProperties",
  "unevaluatedItems",
  "uniqueItems",
  "contains",
  "minContains",
  "maxContains",
  "dependentRequired",
  "dependentSchemas",
  "if",
  "then",
  "else",
  "not",
  "examples",
] as const;

const isObject = (v: unknown): v is Schema => v !== null && typeof v === "object" && !Array.isArray(v);

/**
 * The strict variant of a tool's input schema, or null when strict mode would narrow it: an object
 * whose keys are free (a record or dictionary: `additionalProperties` a schema or true,
 * `patternProperties`, or no `properties` at all) can only be `{}` under `additionalProperties:
 * false`, so such a tool is sent as written, without `strict`. The original is not changed.
 */
export function strictSchema(schema: Record<string, unknown>): { schema: Record<string, unknown> } | null {
  if (hasFreeObject(schema, 0)) return null;
  const { $schema: _drop, ...rest } = schema;
  return { schema: strictNode(rest) };
}

/** Subschema keywords holding one schema, and those holding a list or a map of them. */
const ONE = ["items", "additionalItems", "contains", "not", "if", "then", "else", "unevaluatedItems"] as const;
const MANY = ["anyOf", "oneOf", "allOf", "prefixItems"] as const;
const MAPS = ["properties", "$defs", "definitions", "dependentSchemas"] as const;

/** Whether any object node of `node` lets keys through that it does not name. */
function hasFreeObject(node: unknown, depth: number): boolean {
  if (!isObject(node) || depth > 64) return false;
  const extra = node.additionalProperties;
  const isObjectNode = node.type === "object" || (Array.isArray(node.type) && node.type.includes("object")) || "properties" in node || "patternProperties" in node || "additionalProperties" in node;
  if (isObjectNode && (isObject(extra) || extra === true || "patternProperties" in node || (!isObject(node.properties) && extra !== false))) return true;
  if (ONE.some((k) => hasFreeObject(node[k], depth + 1))) return true;
  if (MANY.some((k) => Array.isArray(node[k]) && (node[k] as unknown[]).some((v) => hasFreeObject(v, depth + 1)))) return true;
  return MAPS.some((k) => isObject(node[k]) && Object.values(node[k]).some((v) => hasFreeObject(v, depth + 1)));
}

function strictNode(node: Schema): Schema {
  const out: Schema = {};
  const moved: string[] = [];
  for (const [key, value] of Object.entries(node)) {
    if ((MOVED_KEYWORDS as readonly string[]).includes(key)) moved.push(`${key}: ${JSON.stringify(value)}`);
    else if (key === "oneOf" && Array.isArray(value)) out.anyOf = value.map((v) => (isObject(v) ? strictNode(v) : v));
    else if ((key === "anyOf" || key === "allOf" || key === "prefixItems") && Array.isArray(value)) out[key] = value.map((v) => (isObject(v) ? strictNode(v) : v));
    else if (key === "items" && isObject(value)) out.items = strictNode(value);
    else if ((key === "$defs" || key === "definitions") && isObject(value)) out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, isObject(v) ? strictNode(v) : v]));
    else if (key !== "properties" && key !== "required" && key !== "additionalProperties") out[key] = value;
  }
  if (isObject(node.properties) || node.type === "object") {
    const properties = isObject(node.properties) ? node.properties : {};
    const required = new Set(Array.isArray(node.required) ? (node.required as string[]) : []);
    out.properties = Object.fromEntries(
      Object.entries(properties).map(([k, v]) => {
        const child = isObject(v) ? strictNode(v) : v;
        return [k, required.has(k) || !isObject(child) ? child : nullable(child)];
      }),
    );
    out.required = Object.keys(properties);
    out.additionalProperties = false;
  }
  if (moved.length > 0) out.description = [typeof out.description === "string" ? out.description : "", `(${moved.join("; ")})`].filter(Boolean).join(" ");
  return out;
}

/** The schema also accepting `null`. */
function nullable(schema: Schema): Schema {
  if (acceptsNull(schema)) return schema;
  if (typeof schema.type === "string" && !("enum" in schema) && !("const" in schema)) return { ...schema, type: [schema.type, "null"] };
  if (Array.isArray(schema.type) && !("enum" in schema)) return { ...schema, type: [...schema.type, "null"] };
  if (Array.isArray(schema.anyOf)) return { ...schema, anyOf: [...schema.anyOf, { type: "null" }] };
  const { description, ...inner } = schema;
  return { anyOf: [inner, { type: "null" }], ...(description !== undefined ? { description } : {}) };
}

/** Whether a schema (as written by the tool's author) lets `null` through. */
function acceptsNull(schema: Schema): boolean {
  if (schema.type === "null") return true;
  if (Array.isArray(schema.type) && schema.type.includes("null")) return true;
  if (Array.isArray(schema.enum) && schema.enum.includes(null)) return true;
  if ("const" in schema && schema.const === null) return true;
  for (const key of ["anyOf", "oneOf"] as const) {
    const list = schema[key];
    if (Array.isArray(list) && list.some((s) => isObject(s) && acceptsNull(s))) return true;
  }
  return false;
}

/**
 * Undoes the strict variant on a model's argument text: a `null` for a key that was optional (and
 * whose schema does not accept `null`) becomes an absent key. Text that does not parse, needs no
 * change, or is for a tool sent without strict mode, is returned as it came.
 */
export function fromStrictArguments(schema: Record<string, unknown>, text: string): string {
  // A tool sent as written (see `strictSchema`) gets its arguments as the model wrote them.
  if (hasFreeObject(schema, 0)) return text;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return text;
  }
  const changed = dropNulls(schema, value);
  return changed ? JSON.stringify(value) : text;
}

function dropNulls(schema: Schema, value: unknown): boolean {
  if (Array.isArray(value) && isObject(schema.items)) {
    let changed = false;
    for (const item of value) changed = dropNulls(schema.items, item) || changed;
    return changed;
  }
  if (!isObject(value) || !isObject(schema.properties)) return false;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  let changed = false;
  for (const [key, child] of Object.entries(schema.properties)) {
    // Own keys only: `in` would reach the prototype (`__proto__` there is null, and would be deleted from Object.prototype).
    if (!isObject(child) || !Object.hasOwn(value, key)) continue;
    if (value[key] === null && !required.has(key) && !acceptsNull(child)) {
      delete value[key];
      changed = true;
    } else {
      changed = dropNulls(child, value[key]) || changed;
    }
  }
  return changed;
}
