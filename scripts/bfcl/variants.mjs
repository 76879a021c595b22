/**
 * Invalid variants of a valid call: the same arguments with one argument given a wrong type, or
 * with one required argument removed. Each variant is confirmed against the reference validator,
 * which must refuse it naming that argument; a variant the reference would accept is not made.
 * @module
 */
import { isPlainObject } from "./convert.mjs";

/** @typedef {{ kind: "wrong_type" | "missing_required", argument: string, args: Record<string, unknown> }} Variant */

// Probe values with their JSON type; tried in this order, skipping types the property allows.
const PROBES = [
  { type: "string", value: "weft: not a valid value" },
  { type: "number", value: 123456789.5 },
  { type: "boolean", value: true },
  { type: "object", value: { weft: "not a valid value" } },
  { type: "array", value: ["weft: not a valid value"] },
  { type: "null", value: null },
];

/** JSON types a subschema's `type` allows, or `null` when it has no `type`. */
function allowedTypes(schema) {
  if (!isPlainObject(schema) || schema.type === undefined) return null;
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  return new Set(types.flatMap((t) => (t === "integer" ? ["integer", "number"] : [t])));
}

/**
 * Builds up to two invalid variants of a call the reference accepts: a wrong type for the first
 * argument (in argument order) where one can be found, and the removal of the first required
 * argument that has no default (a default would make its removal valid).
 * @param {Record<string, any>} schema the converted args schema (object root)
 * @param {Record<string, unknown>} args the call's arguments as sent (before defaults)
 * @param {(args: unknown) => import("./reference.mjs").Verdict} check the reference for `schema`
 * @returns {Variant[]}
 */
export function invalidVariants(schema, args, check) {
  /** @type {Variant[]} */
  const variants = [];
  const properties = isPlainObject(schema.properties) ? schema.properties : {};

  wrongType: for (const argument of Object.keys(args)) {
    const allowed = allowedTypes(properties[argument]);
    for (const probe of PROBES) {
      if (allowed && (allowed.has(probe.type) || (probe.type === "number" && allowed.has("integer")))) continue;
      const candidate = { ...args, [argument]: probe.value };
      if (refusesNaming(check(candidate), argument)) {
        variants.push({ kind: "wrong_type", argument, args: candidate });
        break wrongType;
      }
    }
  }

  const required = Array.isArray(schema.required) ? schema.required : [];
  for (const argument of required) {
    if (!(argument in args)) continue;
    if (isPlainObject(properties[argument]) && "default" in properties[argument]) continue;
    const { [argument]: _removed, ...candidate } = args;
    if (refusesNaming(check(candidate), argument)) {
      variants.push({ kind: "missing_required", argument, args: candidate });
      break;
    }
  }
  return variants;
}

/** True when the verdict is a refusal and one of its paths starts at `argument`. */
function refusesNaming(verdict, argument) {
  return !verdict.ok && verdict.paths.some((p) => p[0] === argument);
}
