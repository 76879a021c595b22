/**
 * The metadata project code stores with a message (a tool's `state.injectMessage`, a
 * `before_create_message` hook's replacement): checked as it will be stored, so none becomes an
 * oversized row, a value that reads back different, or a key weft acts on.
 * @module
 */
import { byteLength, jsonTextBytes } from "../bytes.js";
import { WeftError, errorMessage } from "../errors.js";
import { checkJsonShape } from "../json-shape.js";
import type { ValueRedact } from "../kept-text.js";
import { MAX_CONTENT_BYTES } from "./messages.js";
import { PROMPT_CALL_KEY } from "./prompt.js";
import { TURN_SETTINGS_KEY } from "./turn-settings.js";

/** Metadata keys weft sets and reads itself: a nested run's messages, a queued call's step, a turn's model settings. */
const RESERVED_METADATA_KEYS: readonly string[] = [PROMPT_CALL_KEY, "queued", TURN_SETTINGS_KEY];

/**
 * Checks the metadata a tool gives `injectMessage` and returns it as it will be stored (read back
 * from its JSON text, so later reads return the same): a JSON object, well-formed and at most
 * `maxDepth` levels deep, with no key weft reads itself, and small enough that content and
 * metadata together fit {@link MAX_CONTENT_BYTES} as stored (one row holds both; rows stop at 2 MB).
 * @throws WeftError `invalid_request` naming the path (`metadata`, or the key) for anything else;
 * `payload_too_large` (path `metadata`, with `limit`) when content and metadata are over the limit.
 */
export function checkInjectedMetadata(metadata: unknown, content: string, maxDepth: number): Record<string, unknown> {
  const stored = storedMetadata(metadata, jsonTextBytes(content), maxDepth);
  const taken = RESERVED_METADATA_KEYS.find((key) => Object.hasOwn(stored, key));
  if (taken !== undefined) throw refusal("is set by weft itself; use another key", ["metadata", taken]);
  return stored;
}

/**
 * The metadata a `before_create_message` hook returned for `original`, as it will be stored: the
 * hook's own keys (checked as {@link checkInjectedMetadata} checks them) and weft's keys as
 * `original` has them, since where a message belongs is the runtime's, not the hook's; `usedBytes`
 * are the replacement's text, parts and tool calls as stored, which with the metadata stay within
 * `maxBytes`; the hook's keys passed through `clean`. Undefined when neither has any.
 * @throws WeftError as {@link checkInjectedMetadata}, except for weft's keys.
 */
export function hookMetadata(returned: unknown, original: Record<string, unknown> | undefined, usedBytes: number, maxDepth: number, maxBytes: number, clean: ValueRedact): Record<string, unknown> | undefined {
  // The hook's own data: `clean` (the thread's `Redactor.content`) searches its numbers too, which the message's redaction leaves.
  const own = returned === undefined || returned === null ? {} : clean(storedMetadata(returned, usedBytes, maxDepth, maxBytes));
  for (const key of RESERVED_METADATA_KEYS) {
    delete own[key];
    if (original && Object.hasOwn(original, key)) own[key] = original[key];
  }
  return Object.keys(own).length > 0 ? own : undefined;
}

/** `metadata` as it will be stored: a JSON object read back from its text, within `maxBytes` with the `usedBytes` of the rest of its message. */
function storedMetadata(metadata: unknown, usedBytes: number, maxDepth: number, maxBytes = MAX_CONTENT_BYTES): Record<string, unknown> {
  const path = ["metadata"];
  let text: string | undefined;
  try {
    text = JSON.stringify(metadata);
  } catch (e) {
    throw refusal(`has no JSON form (${errorMessage(e)})`, path);
  }
  // Every check is on what is stored: a getter or proxy cannot answer one thing here and another there.
  const stored: unknown = text === undefined ? undefined : JSON.parse(text);
  if (stored === null || typeof stored !== "object" || Array.isArray(stored)) throw refusal("must be a JSON object", path);
  checkJsonShape(stored, maxDepth, path);
  const bytes = usedBytes + byteLength(text!);
  if (bytes > maxBytes) {
    throw new WeftError("payload_too_large", `metadata: ${bytes} bytes with the rest of the message as stored (JSON), over the ${maxBytes}-byte limit of a message`, { path, limit: maxBytes });
  }
  return stored as Record<string, unknown>;
}

const refusal = (why: string, path: string[]) => new WeftError("invalid_request", `${path.join(".")} ${why}`, { path });
