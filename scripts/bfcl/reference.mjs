/**
 * The reference validator weft's decisions are judged against: Ajv, JSON Schema draft 2020-12,
 * `strict: false`, all errors, on the schema exactly as the harness hands it to weft. Node side only; weft never loads it.
 * Also derives what the harness needs from it: the arguments a valid call must execute with
 * (valid defaults applied) and the paths a refusal must name.
 * @module
 */
import Ajv2020Module from "ajv/dist/2020.js";
import { isPlainObject } from "./convert.mjs";

const Ajv2020 = /** @type {any} */ (Ajv2020Module).default ?? Ajv2020Module;

/**
 * @typedef {{ ok: true, value: unknown }
 *   | { ok: false, paths: string[][], messages: string[] }} Verdict
 * `value` is a deep copy of the input with defaults inserted; `paths` are the failing paths as
 * string segments (`["items", "0", "name"]`; the root is `[]`).
 */

/**
 * Creates one reference validator. Formats are annotations only, as in draft 2020-12's default
 * vocabulary (`validateFormats: false`, the same default weft has).
 */
export function createReference() {
  const plain = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  const withDefaults = new Ajv2020({ useDefaults: true, strict: false, allErrors: true, validateFormats: false });

  /**
   * Compiles a schema once, exactly as given; the returned check never mutates its argument. The
   * verdict is Ajv's on that schema. The value a valid call must execute with is the input with
   * every `default` inserted that passes its own subschema: JSON Schema makes `default` an
   * annotation, so one its schema refuses is not applied (Ajv's `useDefaults` would insert it,
   * so that second validator sees the schema without those defaults; only the value is taken from it).
   * @param {Record<string, unknown>} schema
   * @returns {{ check: (args: unknown) => Verdict, badDefaults: string[] }}
   */
  function compile(schema) {
    const validate = plain.compile(structuredClone(schema));
    const { schema: conforming, dropped } = withoutBadDefaults(schema);
    const fill = withDefaults.compile(conforming);
    function check(args) {
      const value = structuredClone(args);
      if (validate(value)) {
        const filled = structuredClone(args);
        fill(filled);
        return { ok: true, value: filled };
      }
      const errors = validate.errors ?? [];
      return { ok: false, paths: errors.map(errorPath), messages: errors.map((e) => `${formatPath(errorPath(e))}: ${e.message}`) };
    }
    return { check, badDefaults: dropped };
  }

  /** A copy of `schema` without the defaults that fail their own subschema, and where they were. */
  function withoutBadDefaults(schema) {
    const copy = structuredClone(schema);
    /** @type {string[]} */
    const dropped = [];
    walkSchemas(copy, "#", (node, where) => {
      if (!("default" in node)) return;
      const { default: value, ...rest } = node;
      if (!plain.validate(rest, value)) {
        delete node.default;
        dropped.push(`${where}/default: ${JSON.stringify(value)}`);
      }
    });
    return { schema: copy, dropped };
  }

  return { compile };
}

/** Calls `visit` on every subschema object, parents first. */
function walkSchemas(node, where, visit) {
  if (!isPlainObject(node)) return;
  visit(node, where);
  for (const key of ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]) {
    if (isPlainObject(node[key])) for (const [k, s] of Object.entries(node[key])) walkSchemas(s, `${where}/${key}/${k}`, visit);
  }
  for (const key of ["anyOf", "oneOf", "allOf", "prefixItems"]) {
    if (Array.isArray(node[key])) node[key].forEach((s, i) => walkSchemas(s, `${where}/${key}/${i}`, visit));
  }
  for (const key of ["items", "additionalProperties", "not", "contains", "propertyNames", "if", "then", "else"]) {
    walkSchemas(node[key], `${where}/${key}`, visit);
  }
}

/** The instance path an Ajv error is about, as segments; a missing or extra key is named itself. */
function errorPath(error) {
  const segments = error.instancePath === "" ? [] : error.instancePath.slice(1).split("/").map(unescapePointer);
  const p = error.params ?? {};
  if (error.keyword === "required" && typeof p.missingProperty === "string") segments.push(p.missingProperty);
  if (error.keyword === "additionalProperties" && typeof p.additionalProperty === "string") segments.push(p.additionalProperty);
  return segments;
}

function unescapePointer(s) {
  return s.replace(/~1/g, "/").replace(/~0/g, "~");
}

/**
 * Renders segments the way weft does (`items[0].name`, root `input`); numeric segments render
 * as indexes.
 * @param {readonly string[]} segments
 */
export function formatPath(segments) {
  if (segments.length === 0) return "input";
  let out = "";
  for (const s of segments) out += /^\d+$/.test(s) ? `[${s}]` : out === "" ? s : `.${s}`;
  return out;
}

/**
 * True when one path is the other or an ancestor of it (refusals may name a parent or a leaf).
 * The root only matches the root: naming `input` says nothing about where the fault is.
 */
export function pathsRelated(a, b) {
  if (a.length === 0 || b.length === 0) return a.length === b.length;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (String(a[i]) !== String(b[i])) return false;
  return true;
}
