/**
 * The metadata a tool stores with `state.injectMessage`: checked as it will be stored, so nothing a
 * tool passes becomes an oversized row, a value that reads back different, or a key weft acts on.
 * @module
 */
import { byteLength, jsonTextBytes } from "../bytes.js";
import { WeftError, errorMessage } from "../errors.js";
import { checkJsonShape } from "../json-shape.js";
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
  const path = ["metadata"];
  const refuse = (why: string, at: string[] = path) => new WeftError("invalid_request", `injectMessage: ${at.join(".")} ${why}`, { path: at });
  let text: string | undefined;
  try {
    text = JSON.stringify(metadata);
  } catch (e) {
    throw refuse(`has no JSON form (${errorMessage(e)})`);
  }
  // Every check is on what is stored: a getter or proxy cannot answer one thing here and another there.
  const stored: unknown = text === undefined ? undefined : JSON.parse(text);
  if (stored === null || typeof stored !== "object" || Array.isArray(stored)) throw refuse("must be a JSON object");
  const taken = RESERVED_METADATA_KEYS.find((key) => Object.hasOwn(stored, key));
  if (taken !== undefined) throw refuse("is set by weft itself; use another key", [...path, taken]);
  checkJsonShape(stored, maxDepth, path);
  const bytes = jsonTextBytes(content) + byteLength(text!);
  if (bytes > MAX_CONTENT_BYTES) {
    throw new WeftError("payload_too_large", `metadata: ${bytes} bytes with the content as stored (JSON), over the ${MAX_CONTENT_BYTES}-byte limit of a message`, { path, limit: MAX_CONTENT_BYTES });
  }
  return stored as Record<string, unknown>;
}
