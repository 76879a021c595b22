/**
 * Normalising what `execute` returns or throws into one `ToolResult`: every failure is a result the model sees, never a crashed turn (README, Guarantees).
 * @module
 */
import { errorMessage, errorStack } from "../errors.js";
import type { ToolResult } from "../protocol.js";

/**
 * An error result from any thrown value: the message is never empty; the stack is kept (cut to
 * `MAX_STACK_BYTES` once redacted, where the result is recorded: `capResult` in size.ts).
 */
export function resultFromThrown(thrown: unknown): ToolResult {
  const result: ToolResult = { status: "error", error: errorMessage(thrown) };
  const stack = errorStack(thrown);
  if (stack) result.stack = stack;
  return result;
}

/** What a refused return value of `execute` is told it should have been. */
const EXPECTED_RESULT = 'expected a ToolResult { status: "success" | "error", result?, error? }';

/**
 * The result of what `execute` returned. `execute` returns a `ToolResult` (the Standard Agents
 * tools API's `Tool`), so a bare string, which only untyped code can return, is an error result
 * that quotes it (its first 200 characters, after `redact`), as a plain object without `status` is; otherwise
 * as {@link normalizeResult}. `redact` is the thread's (secrets replaced whole): a cut made
 * before it would keep a secret's first characters, and one made in a text its caller partly
 * wrote could be moved along the secret to read it.
 */
export function executeResult(value: unknown, redact: (text: string) => string = (text) => text): ToolResult {
  if (typeof value !== "string") return normalizeResult(value);
  const seen = redact(value);
  const shown = seen.length > 200 ? `${JSON.stringify(seen.slice(0, 200))}...` : JSON.stringify(seen);
  return { status: "error", error: `tool returned a bare string (${shown}); ${EXPECTED_RESULT}` };
}

/**
 * Accepts a `ToolResult`, or a bare string as a success (what `dryRunResult` and a reconcile
 * lookup's `found` value may be), and repairs what a model can't use:
 * a non-string `result` is serialised, an error without a message gets one.
 */
export function normalizeResult(value: unknown): ToolResult {
  if (typeof value === "string") return { status: "success", result: value };
  if (value === null || typeof value !== "object" || !("status" in value)) {
    const shown = value === undefined ? "undefined" : safeJson(value);
    return { status: "error", error: `tool returned ${shown}; ${EXPECTED_RESULT}` };
  }
  const raw = value as Record<string, unknown>;
  if (raw.status !== "success" && raw.status !== "error") {
    return { status: "error", error: `tool returned status ${safeJson(raw.status)}; expected "success" or "error"` };
  }
  const out: ToolResult = { status: raw.status };
  if (raw.result !== undefined && typeof raw.result !== "string") {
    try {
      out.result = JSON.stringify(raw.result) ?? String(raw.result);
    } catch (e) {
      return { status: "error", error: `tool returned a result that cannot be serialised as JSON (${errorMessage(e)}); return a string` };
    }
  } else if (raw.result !== undefined) out.result = raw.result;
  if (raw.status === "error") {
    out.error = typeof raw.error === "string" && raw.error.length > 0 ? raw.error : raw.error === undefined ? "tool reported an error without a message" : errorMessage(raw.error);
  } else if (raw.error !== undefined) {
    out.error = String(raw.error);
  }
  if (typeof raw.stack === "string") out.stack = raw.stack;
  if (raw.attachments !== undefined) {
    const bad = attachmentProblem(raw.attachments);
    if (bad) return { status: "error", error: `tool returned ${bad}; an attachment is { name: string, mimeType: string, data: base64 string }` };
    out.attachments = raw.attachments as ToolResult["attachments"];
  }
  return out;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** What is wrong with a result's `attachments`, or null when each is a usable inline file. */
function attachmentProblem(list: unknown): string | null {
  // Named by its type, not quoted: a quote cut short could keep a secret's first characters.
  if (!Array.isArray(list)) return `attachments that are not an array (${list === null ? "null" : typeof list})`;
  for (const [i, a] of list.entries()) {
    if (a === null || typeof a !== "object") return `attachments[${i}] that is not an object`;
    const item = a as Record<string, unknown>;
    for (const field of ["name", "mimeType"]) {
      if (typeof item[field] !== "string" || item[field] === "") return `attachments[${i}] without ${field}`;
    }
    if (typeof item.data !== "string") return `attachments[${i}] without data`;
    if ((item.data as string).length % 4 !== 0 || !BASE64.test(item.data as string)) return `attachments[${i}] whose data is not base64`;
  }
  return null;
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch (e) {
    return `<unserialisable ${typeof value}: ${errorMessage(e)}>`;
  }
}

/** The text a model sees for a result: the result on success, the error otherwise. */
export function resultText(result: ToolResult): string {
  if (result.status === "success") return result.result ?? "";
  return result.error ?? "error";
}

/** The mark a tool message of `result` carries: `isError` unless the call succeeded (see `Message.isError`). */
export function errorMark(result: ToolResult): { isError?: true } {
  return result.status === "success" ? {} : { isError: true };
}
