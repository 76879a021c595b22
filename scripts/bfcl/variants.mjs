/**
 * Invalid variants of a valid call: the same arguments with one fault planted at a known path.
 * Eight kinds, each made at most once per call: a wrong top-level type, a missing required
 * argument, an enum violation, a fraction for an integer, a wrong type inside a nested object, a
 * wrong array item, an extra property where `additionalProperties` is false, and `null` for a
 * field that does not allow it. A variant is kept only when the reference refuses it naming the
 * planted path (or a parent of it); one the reference accepts is not made.
 * @module
 */
import { isPlainObject } from "./convert.mjs";

/**
 * @typedef {"wrong_type" | "missing_required" | "enum_violation" | "fraction_for_integer" | "nested_wrong_type"
 *   | "wrong_array_item" | "extra_property" | "null_for_non_nullable"} VariantKind
 * @typedef {{ kind: VariantKind, argument: string, path: (string | number)[], args: Record<string, unknown> }} Variant
 *   `path` is where the fault sits in the arguments; `argument` is its first segment.
 */

/** Every kind, in the order they are tried and reported. */
export const VARIANT_KINDS = /** @type {const} */ ([
  "wrong_type",
  "missing_required",
  "enum_violation",
  "fraction_for_integer",
  "nested_wrong_type",
  "wrong_array_item",
  "extra_property",
  "null_for_non_nullable",
]);

// Probe values with their JSON type; tried in this order, skipping types the schema allows.
const PROBES = [
  { type: "string", value: "weft: not a valid value" },
  { type: "number", value: 123456789.5 },
  { type: "boolean", value: true },
  { type: "object", value: { weft: "not a valid value" } },
  { type: "array", value: ["weft: not a valid value"] },
];

/** JSON types a subschema's `type` allows, or `null` when it has no `type`. */
function allowedTypes(schema) {
  if (!isPlainObject(schema) || schema.type === undefined) return null;
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  return new Set(types.flatMap((t) => (t === "integer" ? ["integer", "number"] : [t])));
}

/** A probe of a type `schema` does not allow, or undefined when it allows every type. */
function* wrongProbes(schema) {
  const allowed = allowedTypes(schema);
  if (!allowed) return;
  for (const probe of PROBES) if (!allowed.has(probe.type)) yield probe.value;
}

/** A copy of `args` with `value` at `path` (`undefined` removes the key). */
function withValue(args, path, value) {
  const copy = structuredClone(args);
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key];
  const last = path[path.length - 1];
  if (value === undefined) delete node[last];
  else node[last] = value;
  return copy;
}

/**
 * Builds the invalid variants of a call the reference accepts.
 * @param {Record<string, any>} schema the args schema (object root) as weft sees it
 * @param {Record<string, unknown>} args the call's arguments as sent (before defaults)
 * @param {(args: unknown) => import("./reference.mjs").Verdict} check the reference for `schema`
 * @returns {Variant[]} at most one per kind, in {@link VARIANT_KINDS} order
 */
export function invalidVariants(schema, args, check) {
  const properties = isPlainObject(schema.properties) ? schema.properties : {};
  const present = Object.keys(args).filter((a) => isPlainObject(properties[a]));
  /** @type {Map<VariantKind, Array<{ path: (string | number)[], value: unknown }>>} */
  const candidates = new Map(VARIANT_KINDS.map((k) => [k, []]));
  const add = (kind, path, value) => candidates.get(kind).push({ path, value });

  for (const name of present) {
    const sub = properties[name];
    for (const value of wrongProbes(sub)) add("wrong_type", [name], value);
    if (Array.isArray(sub.enum)) {
      const strings = sub.enum.every((v) => typeof v === "string");
      const numbers = sub.enum.every((v) => typeof v === "number");
      if (strings) add("enum_violation", [name], `weft-not-one-of-${sub.enum.length}`);
      else if (numbers) add("enum_violation", [name], Math.max(...sub.enum) + 1);
    }
    if (sub.type === "integer") {
      add("fraction_for_integer", [name], (typeof args[name] === "number" ? Math.trunc(args[name]) : 1) + 0.5);
    }
    const value = args[name];
    if (isPlainObject(value) && isPlainObject(sub.properties)) {
      for (const inner of Object.keys(value)) for (const probe of wrongProbes(sub.properties[inner])) add("nested_wrong_type", [name, inner], probe);
    }
    if (Array.isArray(value) && isPlainObject(sub.items)) {
      for (const probe of wrongProbes(sub.items)) add("wrong_array_item", [name, value.length > 0 ? 0 : value.length], probe);
    }
    if (isPlainObject(value) && sub.additionalProperties === false) add("extra_property", [name, "weft_extra"], 1);
    if (allowedTypes(sub) && !allowedTypes(sub).has("null")) add("null_for_non_nullable", [name], null);
  }
  if (schema.additionalProperties === false) add("extra_property", ["weft_extra"], 1);
  const required = Array.isArray(schema.required) ? schema.required : [];
  for (const name of required) {
    if (!(name in args)) continue;
    if (isPlainObject(properties[name]) && "default" in properties[name]) continue;
    add("missing_required", [name], undefined);
  }

  /** @type {Variant[]} */
  const variants = [];
  for (const kind of VARIANT_KINDS) {
    for (const { path, value } of candidates.get(kind)) {
      const candidate = kind === "wrong_array_item" ? withItem(args, path, value) : withValue(args, path, value);
      if (refusesAt(check(candidate), path)) {
        variants.push({ kind, argument: String(path[0]), path, args: candidate });
        break;
      }
    }
  }
  return variants;
}

/** A copy of `args` whose array at `path[0]` has `value` at index `path[1]` (replaced or appended). */
function withItem(args, path, value) {
  const copy = structuredClone(args);
  copy[path[0]][path[1]] = value;
  return copy;
}

/** True when the verdict is a refusal naming `path` or a path under or above it (not the root). */
function refusesAt(verdict, path) {
  if (verdict.ok) return false;
  return verdict.paths.some((p) => p.length > 0 && p.every((seg, i) => i >= path.length || String(seg) === String(path[i])) && String(p[0]) === String(path[0]));
}
