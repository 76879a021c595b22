/**
 * A call's arguments: parsed from the model's text, validated against the tool's schema, hashed
 * for an approval, and read back from the journal for a call that runs again.
 * @module
 */
import { hmacSha256Hex, sha256Hex } from "../bytes.js";
import { WeftError, errorMessage } from "../errors.js";
import type { CallRecord } from "../protocol.js";
import { wireValue } from "../json-shape.js";
import { type CompiledTool, canonicalJson } from "../tools/catalog.js";
import type { CallRequest } from "./call.js";

/** Parses raw argument text; empty text means no arguments. */
export function parseArgs(args: CallRequest["args"]): { ok: true; value: unknown } | { ok: false; message: string } {
  if (!("text" in args)) return { ok: true, value: args.value ?? {} };
  if (args.text.trim() === "") return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(args.text) as unknown };
  } catch (e) {
    return { ok: false, message: `arguments are not valid JSON (${errorMessage(e)}); raw text: ${args.text.slice(0, 200)}` };
  }
}

/**
 * Validates a parsed value against a tool's schema; a tool without `args` takes `{}`.
 * @returns the parsed input (defaults applied) or an `invalid_tool_input` error naming the path.
 */
export function validateInput(tool: CompiledTool, value: unknown): { ok: true; input: unknown } | { ok: false; error: WeftError } {
  if (tool.args === null) {
    const isObject = value !== null && typeof value === "object" && !Array.isArray(value);
    if (isObject && Object.keys(value).length === 0) return { ok: true, input: undefined };
    const extra = isObject ? Object.keys(value)[0] : undefined;
    const message = extra ? `${extra}: this tool takes no arguments` : "input: this tool takes no arguments";
    return { ok: false, error: new WeftError("invalid_tool_input", message, { path: extra ? [extra] : [] }) };
  }
  const checked = tool.args.validate(value);
  if (checked.ok) return { ok: true, input: checked.data };
  return {
    ok: false,
    error: new WeftError("invalid_tool_input", checked.issues.map((i) => i.message).join("; "), {
      path: checked.issues[0]!.path,
      issues: checked.issues,
    }),
  };
}

/**
 * What an approval is bound to: HMAC-SHA-256 (hex) of the canonical JSON of an input as it goes on
 * the wire (dates as ISO-8601 text), under the thread's `key` (`CallSettings.argsKey`). Keyed
 * because readers see the input redacted: a plain hash would let anyone who reads the thread test
 * guesses of a secret in the arguments offline. Distinct inputs have distinct canonical JSON, so
 * distinct hashes.
 */
export function argsHashOf(input: unknown, key: string): Promise<string> {
  return hmacSha256Hex(key, canonicalJson(wireValue(input) ?? {}));
}

/**
 * SHA-256 (hex) of a value's canonical wire JSON, unkeyed: a cache key, and the argsHash of calls
 * that waited for approval before argsHash was keyed. Never expose it for input that may hold a secret.
 */
export function canonicalHashOf(value: unknown): Promise<string> {
  return sha256Hex(canonicalJson(wireValue(value) ?? {}));
}

/**
 * Whether `hash` is the argsHash of `input` under the thread's key (read only when needed); a call
 * stored before argsHash was keyed holds the plain {@link canonicalHashOf}, and still matches it.
 */
export async function holdsArgs(hash: string | undefined, input: unknown, key: () => string): Promise<boolean> {
  if (hash === undefined) return false;
  return hash === (await argsHashOf(input, key())) || hash === (await canonicalHashOf(input));
}

/**
 * The input a stored call runs with: its arguments validated again, so a `Date` (or any parsed
 * value) is what `execute` gets, not its stored JSON text. A call bound to an argsHash runs only
 * with an input of that hash (`key`: the thread's, as for {@link holdsArgs}); the stored wire form is the last resort.
 */
export async function liveInput(tool: CompiledTool, record: CallRecord, key: () => string): Promise<unknown> {
  return (await storedInput(tool, record, key)).input;
}

/**
 * `liveInput`, and whether the tool as deployed now refuses the input it would run with (its
 * schema changed while the call waited): `refused` holds that refusal, naming the path. A caller
 * never runs a refused input: approval fails the call, recovery parks it, a retry is refused.
 */
export async function storedInput(tool: CompiledTool, record: CallRecord, key: () => string): Promise<{ input: unknown; refused?: WeftError }> {
  const parsed = parseArgs({ text: record.argsText });
  for (const sent of parsed.ok ? [parsed.value, record.input] : [record.input]) {
    const checked = validateInput(tool, sent);
    if (checked.ok && (record.argsHash === undefined || (await holdsArgs(record.argsHash, checked.input, key)))) return { input: checked.input };
  }
  // The last resort is the stored input itself, and only if the tool as deployed accepts it: the
  // model's text may pass a new schema while the input it was approved as does not.
  const last = validateInput(tool, record.input === undefined && tool.args === null ? {} : record.input);
  return last.ok ? { input: record.input } : { input: record.input, refused: last.error };
}

/** The request a stored call was made with. */
export function requestOf(record: CallRecord): CallRequest {
  return {
    callId: record.callId,
    toolName: record.toolName,
    args: { text: record.argsText },
    source: record.source,
    ...(record.turnId ? { turnId: record.turnId } : {}),
  };
}
