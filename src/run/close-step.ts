/**
 * A failed turn leaves no call without a result: before the turn ends `failed`, every call of its
 * open step gets a final result (an error naming the failure, unless it already had one: the call
 * runner's `abortOpen`) and the results join the history, so the next model request is valid for
 * any provider.
 * @module
 */
import type { ToolCallRequest } from "../protocol.js";
import { type NewTurnMessage, queuedCallEntries } from "./messages.js";
import { errorMark, resultText } from "../calls/result.js";
import type { RunWorld } from "./world.js";
import { hasHook } from "./hook-calls.js";

/** Closes the open step of turn `turnId` after the turn failed with `error` (or was stopped before it could go on, `error` the stop's reason). */
export function closeOpenStep(engine: RunWorld, turnId: string, error: string): void {
  const { store } = engine;
  const open = store.turns.pendingStep<ToolCallRequest>(turnId);
  if (!open || open.length === 0) return;
  const records = engine.calls.abortOpen(turnId, open, error);
  // Stored here without the create-message hooks (one of them may be what failed): a result no
  // `before_create_message` let through (a redaction) is not put in the history; the call's record keeps it.
  const unhooked = hasHook(engine, "before_create_message");
  const messages: NewTurnMessage[] = open.map((call, i) => {
    const result = records[i]!.result ?? { status: "error" as const, error: "no result" };
    const content = unhooked ? withheld(records[i]!.status) : resultText(result);
    return { role: "tool" as const, content, toolCallId: call.id, name: call.name, ...errorMark(result) };
  });
  // A call they queued that ran joins too, as its own call and result (as a settled step's does).
  for (const q of engine.calls.queuedDone(open.map((call) => call.id))) messages.push(...queuedCallEntries(q, unhooked ? withheld(q.status) : undefined));
  engine.appendMessages(messages, () => store.turns.setPendingStep(turnId, null));
}

/** A result kept out of the history: the call is `status`, and its result did not pass the hooks. */
const withheld = (status: string) => `(the call's status is ${status}; its result is not in the history: the turn ended before the before_create_message hooks let it through)`;
