/**
 * The reference validator weft's decisions are judged against: Ajv, JSON Schema draft 2020-12,
 * `useDefaults: true`, `strict: false`, all errors. Node side only; weft never loads it.
 * Also derives what the harness needs from it: the arguments a valid call must execute with
 * (defaults applied) and the paths a refusal must name.
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
 * vocabulary (Ajv ships no format checks without ajv-formats either; `validateFormats: false`
 * just silences its warnings).
 */
export function createReference() {
  const ajv = new Ajv2020({ useDefaults: true, strict: false, allErrors: true, validateFormats: false });
  const plain = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });

  /**
   * Compiles a schema once; the returned check never mutates its argument.
   * @param {Record<string, unknown>} schema
   * @returns {(args: unknown) => Verdict}
   */
  function compile(schema) {
    const validate = ajv.compile(structuredClone(schema));
    return function check(args) {
      const value = structuredClone(args);
      if (validate(value)) return { ok: true, value };
      const errors = validate.errors ?? [];
      return {
        ok: false,
        paths: errors.map(errorPath),
        messages: errors.map((e) => `${formatPath(errorPath(e))}: ${e.message}`),
      };
    };
  }

  /**
   * Removes every `default` that fails its own subschema (BFCL has `"default": null` on strings
   * and `"default": "5 years"` on integers). JSON Schema treats `default` as an annotation, so
   * such a call is valid without the argument; but Ajv's `useDefaults` would insert and then
   * reject the value, and a runtime could insert it unchecked. Dropping it gives both sides one
   * meaning: no default.
   * @param {Record<string, unknown>} schema
   * @returns {{ schema: Record<string, unknown>, dropped: string[] }} a fresh schema and the
   *   schema paths of the dropped defaults
   */
  function dropNonConformingDefaults(schema) {
    const copy = structuredClone(schema);
    /** @type {string[]} */
    const dropped = [];
    walkSchemas(copy, "#", (node, where) => {
      if (!("default" in node)) return;
      const { default: value, ...rest } = node;
      if (!plain.validate(rest, value)) {
        delete node.default;
        dropped.push(`${where}: ${JSON.stringify(value)}`);
      }
    });
    return { schema: copy, dropped };
  }

  return { compile, dropNonConformingDefaults };
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
 * Parses the paths out of a weft refusal: the text after `invalid_tool_input:` holds one
 * `<path>: <message>` issue per line or joined by `; ` (weft joins them on one line).
 * Returns `null` when the text is not an `invalid_tool_input` refusal.
 * @param {unknown} error the `error` text of a `tool_call_finished` event
 * @returns {string[][] | null} one segment list per line that names a path
 */
export function refusalPaths(error) {
  if (typeof error !== "string") return null;
  const m = /^invalid_tool_input:\s*/.exec(error);
  if (!m) return null;
  const paths = [];
  // Split at newlines, and at "; " only where the next issue's "<path>: " follows.
  for (const raw of error.slice(m[0].length).split(/\n|;\s+(?=[^\s;:]+: )/)) {
    const line = raw.trim().replace(/^[-*•]\s*/, "");
    const colon = line.indexOf(": ");
    if (colon <= 0) continue;
    paths.push(parsePath(line.slice(0, colon)));
  }
  return paths;
}

/** `items[0].name` -> `["items", "0", "name"]`; `input` -> `[]`. */
export function parsePath(text) {
  if (text === "input") return [];
  const segments = [];
  for (const m of text.matchAll(/\[(\d+)\]|([^.[\]]+)/g)) segments.push(m[1] ?? m[2]);
  return segments;
}

/**
 * True when one path is the other or an ancestor of it (refusals may name a parent or a leaf).
 * The root only matches the root: naming `input` says nothing about where the fault is.
 */
export function pathsRelated(a, b) {
  if (a.length === 0 || b.length === 0) return a.length === b.length;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}
