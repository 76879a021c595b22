/**
 * BFCL `possible_answer` -> the concrete arguments the scripted model sends. Each argument lists
 * its acceptable values; we take the first at every nesting level (inside object values and
 * inside objects in arrays), and leave an argument out when its first value is `""` (BFCL's
 * "may be omitted") or when its list is empty (no acceptable value at all: a data quirk).
 * @module
 */
import { isDeepStrictEqual } from "node:util";
import { isPlainObject } from "./convert.mjs";

/**
 * Resolves one argument map (`{ arg: [acceptable, ...] }`) to concrete arguments.
 * A key whose value is not a list is taken literally (BFCL never does this, but a folder might).
 * @param {Record<string, unknown>} answer
 * @returns {Record<string, unknown>} fresh arguments; keys keep their order
 */
export function expectedArguments(answer) {
  /** @type {Record<string, unknown>} */
  const out = {};
  for (const [key, acceptable] of Object.entries(answer)) {
    if (!Array.isArray(acceptable)) {
      out[key] = resolveValue(acceptable);
      continue;
    }
    if (acceptable.length === 0) continue; // no acceptable value: nothing we could send
    const first = acceptable[0];
    if (first === "") continue; // "" first: the argument is left out
    out[key] = resolveValue(first);
  }
  return out;
}

/** An object value nests acceptable-value lists again; arrays are literal except for objects in them. */
function resolveValue(value) {
  if (Array.isArray(value)) return value.map(resolveValue);
  if (isPlainObject(value)) return expectedArguments(value);
  return value;
}

/**
 * Reads one `ground_truth` entry (`{ "<function name>": { arg: [...] } }`).
 * @param {unknown} entry
 * @returns {{ name: string, args: Record<string, unknown> }}
 * @throws Error when the entry is not a single-key object
 */
export function expectedCall(entry) {
  if (!isPlainObject(entry) || Object.keys(entry).length !== 1) {
    throw new Error(`ground_truth entry must have exactly one function name: ${JSON.stringify(entry).slice(0, 120)}`);
  }
  const [name, answer] = Object.entries(entry)[0];
  if (!isPlainObject(answer)) throw new Error(`ground_truth for ${name} must be an object of argument lists`);
  return { name, args: expectedArguments(answer) };
}

/**
 * BFCL's judgement of a call's arguments against a `possible_answer` argument map: every argument
 * sent is one the answer names, and its value is one of the listed acceptable values; an argument
 * left out must list `""` (BFCL's "may be omitted") or nothing at all (the data quirk
 * `expectedArguments` also reads as left out). Object values nest acceptable lists again; arrays
 * are literal except for objects in them, as `expectedArguments` reads them.
 * @param {Record<string, unknown>} answer `{ arg: [acceptable, ...] }`
 * @param {unknown} args the arguments the model sent
 * @param {string} [path] where `args` sits, for the reason
 * @returns {string | null} why they do not match, or null when they do
 */
export function answerMismatch(answer, args, path = "") {
  const at = (/** @type {string} */ key) => (path ? `${path}.${key}` : key);
  if (!isPlainObject(args)) return `${path || "arguments"}: ${JSON.stringify(args)} is not an object`;
  for (const key of Object.keys(args)) if (!(key in answer)) return `${at(key)}: not an argument of the answer`;
  for (const [key, acceptable] of Object.entries(answer)) {
    const list = Array.isArray(acceptable) ? acceptable : [acceptable];
    if (!(key in args)) {
      if (list.length === 0 || list.includes("")) continue;
      return `${at(key)}: missing (acceptable: ${JSON.stringify(list)})`;
    }
    if (!list.some((v) => v !== "" && valueMatches(v, /** @type {any} */ (args)[key], at(key)))) {
      return `${at(key)}: ${JSON.stringify(/** @type {any} */ (args)[key])} is none of ${JSON.stringify(list)}`;
    }
  }
  return null;
}

/** @param {unknown} acceptable @param {unknown} value @param {string} path */
function valueMatches(acceptable, value, path) {
  if (isPlainObject(acceptable)) return answerMismatch(acceptable, value, path) === null;
  if (Array.isArray(acceptable)) {
    return Array.isArray(value) && value.length === acceptable.length && acceptable.every((a, i) => valueMatches(a, value[i], `${path}[${i}]`));
  }
  return isDeepStrictEqual(acceptable, value);
}
