/**
 * BFCL `possible_answer` -> the concrete arguments the scripted model sends. Each argument lists
 * its acceptable values; we take the first at every nesting level (inside object values and
 * inside objects in arrays), and leave an argument out when its first value is `""` (BFCL's
 * "may be omitted") or when its list is empty (no acceptable value at all: a data quirk).
 * @module
 */
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
