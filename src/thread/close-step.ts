/**
 * A failed turn leaves no call without a result: before the turn ends `failed`, every call of its
 * open step gets a final result (an error naming the failure, unless it already had one) and the
 * results join the history, so the next model request is valid for any provider.
 * @module
 */
import type { ToolCallRequest } from "../protocol.js";
import { isFinalStatus } from "../protocol.js";
import { finishCall, rowOf } from "../calls/record.js";
import { effectKeyOf } from "../calls/host.js";
import { resultText } from "../calls/result.js";
import { createDispatchHost } from "./dispatch-host.js";
import type { ThreadEngine } from "./engine.js";

/** Closes the open step of turn `turnId` after the turn failed with `error`. */
export function closeOpenStep(engine: ThreadEngine, turnId: string, error: string): void {
  const { store } = engine;
  const open = store.turns.pendingStep<ToolCallRequest>(turnId);
  if (!open || open.length === 0) return;
  const host = createDispatchHost(engine, null);
  const messages = open.map((call) => {
    let record = store.calls.get(call.id);
    if (!record || !isFinalStatus(record.status)) {
      const request = { callId: call.id, toolName: call.name, args: { text: call.arguments }, source: "model" as const, turnId };
      if (!record) store.calls.insert({ ...rowOf(request, effectKeyOf(host.branchId, call.id)), status: "queued" });
      const ran = record?.status === "started" || record?.status === "parked";
      const why = `aborted: the turn failed before this call finished (${error})${ran ? "; the call had begun, so its effect may have happened" : ""}`;
      finishCall(host, { request, startedAt: Date.now() }, { status: "error", error: why }, "aborted", record?.attempts ?? 0, ran ? { outcome: "unknown" } : {});
      record = store.calls.get(call.id)!;
    }
    return { role: "tool" as const, content: resultText(record.result ?? { status: "error", error: "no result" }), toolCallId: call.id, name: call.name };
  });
  engine.appendMessages(messages, () => store.turns.setPendingStep(turnId, null));
}
