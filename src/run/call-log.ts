/**
 * The console line of a failed tool call, so a failure shows where `npm start` (or
 * `npx wrangler tail`) prints its output instead of only in the call record:
 *
 *   weft: tool thrower call tool_thrower_1a2b3c of thread 4f0c...9a1e failed: boom
 *       at execute (agents/tools/thrower.ts:7:11)
 *
 * One line with the tool, the call id, its thread (an operator reading `wrangler tail` needs it to
 * fetch the call record) and the message, then the stack frames when the tool threw.
 * `WEFT_LOG_FAILED_CALLS = "off"` turns it off. Redacted like every other way out of a thread.
 * @module
 */
import { settingOf } from "../config.js";
import type { EventPayloads } from "../protocol.js";
import { logLines } from "../log.js";

/**
 * The `at` lines of a stack after its `Name: message` header, whose `message` lines (a user may
 * write them to look like frames) are skipped; frames in the copy of agents/ the bundle imports
 * are shown as agents/.
 */
function framesOf(stack: string | undefined, message: string): string[] {
  if (!stack) return [];
  return stack
    .split("\n")
    .slice(message.split("\n").length)
    .filter((line) => /^\s+at /.test(line))
    .map((line) => line.replace(/[^\s(]*src\/generated\/agents\//g, "agents/"));
}

/** Prints the line for `finished` in thread `threadId` when it is an error and logging is on; a denial is a person's decision, not a failure, and prints none. */
export function logFailedCall(
  env: Readonly<Record<string, unknown>>,
  threadId: string,
  finished: EventPayloads["tool_call_finished"],
  stack: () => string | undefined,
  redact: (text: string) => string,
): void {
  if (!finished.isError || finished.status === "denied" || settingOf(env, "WEFT_LOG_FAILED_CALLS") === "off") return;
  const error = finished.error ?? "error";
  const frames = framesOf(stack(), error);
  // Redacted before its line feeds are written out (a secret must match as it is), all of them
  // (logLines): a line of the error's own would pass for a frame, or for a line of weft's.
  logLines("error", [redact(`weft: tool ${finished.toolName} call ${finished.callId} of thread ${threadId} failed: ${error}`), ...frames.map(redact)]);
}
