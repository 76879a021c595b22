/**
 * The result cap of a thread's calls, read from the Worker's env: one rule for the call runner,
 * which cuts results to it, and `read_file`, whose pages fit under it.
 * @module
 */
import { DEFAULT_RESULT_CAP_BYTES } from "../calls/size.js";
import { integerSetting } from "../config.js";
import { MAX_CONTENT_BYTES } from "./messages.js";

/**
 * Bytes of one result's text a model sees (`WEFT_RESULT_CAP_BYTES`, default 32 KiB). Capped results
 * become message rows, so the cap never exceeds half a message's limit.
 */
export function resultCapBytes(workerEnv: Readonly<Record<string, unknown>>): number {
  const cap = integerSetting(workerEnv, "WEFT_RESULT_CAP_BYTES", 1);
  return cap !== undefined ? Math.min(cap, MAX_CONTENT_BYTES / 2) : DEFAULT_RESULT_CAP_BYTES;
}
