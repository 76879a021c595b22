/**
 * A failed turn leaves no call without a result: before the turn ends `failed`, every call of its
 * open step gets a final result (an error naming the failure, unless it already had one: the call
 * runner's `abortOpen`) and the results join the history, so the next model request is valid for
 * any provider.
 * @module
 */
import type { ToolCallRequest } from "../protocol.js";
import { errorMark, resultText } from "../calls/result.js";
import type { RunWorld } from "./world.js";

/** Closes the open step of turn `turnId` after the turn failed with `error` (or was stopped before it could go on, `error` the stop's reason). */
export function closeOpenStep(engine: RunWorld, turnId: string, error: string): void {
  const { store } = engine;
  const open = store.turns.pendingStep<ToolCallRequest>(turnId);
  if (!open || open.length === 0) return;
  const records = engine.calls.abortOpen(turnId, open, error);
  const messages = open.map((call, i) => {
    const result = records[i]!.result ?? { status: "error" as const, error: "no result" };
    return { role: "tool" as const, content: resultText(result), toolCallId: call.id, name: call.name, ...errorMark(result) };
  });
  engine.appendMessages(messages, () => store.turns.setPendingStep(turnId, null));
}
