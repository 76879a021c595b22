/**
 * Two ways a call ends that no pipeline stage runs: the calls of a failed turn's open step, closed
 * with an error result so the next model request is valid for any provider; and the calls a
 * provider ran itself (tools with `executionMode: "provider"`, such as web search), recorded with
 * the provider's result. Both record through the one result writer (record.ts).
 * @module
 */
import type { CallRecord, CallStatus, ToolCallRequest, ToolResult } from "../protocol.js";
import { isFinalStatus } from "../protocol.js";
import { type CallRequest, effectKeyOf } from "./call.js";
import type { CallContext } from "./context.js";
import { finishCall, rowOf } from "./record.js";

/**
 * Ends call `call` of turn `turnId`'s open step after the turn failed with `error` (an error
 * naming the failure, unless it already had a final result); answers its record.
 */
export function abortOpenCall(ctx: CallContext, turnId: string, call: ToolCallRequest, error: string): CallRecord {
  const record = ctx.journal.get(call.id);
  if (record && isFinalStatus(record.status)) return record;
  const request: CallRequest = { callId: call.id, toolName: call.name, args: { text: call.arguments }, source: "model", turnId };
  if (!record) ctx.journal.insert({ ...rowOf(request, effectKeyOf(ctx.branchId, call.id)), status: "queued" });
  const ran = record?.status === "started" || record?.status === "parked";
  const why = `aborted: the turn failed before this call finished (${error})${ran ? "; the call had begun, so its effect may have happened" : ""}`;
  finishCall(ctx, { request, startedAt: Date.now() }, { status: "error", error: why }, "aborted", record?.attempts ?? 0, ran ? { outcome: "unknown" } : {});
  return ctx.journal.get(call.id)!;
}

/**
 * Records a call the provider ran during a step of turn `turnId` (call record and
 * `tool_call_finished`, like any call). A call id already recorded is left alone, so a step read
 * twice records once; answers whether it recorded.
 */
export function recordProvidedCall(ctx: CallContext, turnId: string, call: ToolCallRequest): boolean {
  if (!call.providerExecuted || ctx.journal.get(call.id)) return false;
  const text = JSON.stringify(call.providerResult?.value ?? null) ?? "null";
  const isError = call.providerResult?.isError === true;
  const result: ToolResult = isError ? { status: "error", error: text } : { status: "success", result: text };
  const status: CallStatus = isError ? "failed" : "succeeded";
  const request: CallRequest = { callId: call.id, toolName: call.name, args: { text: call.arguments }, source: "model", turnId };
  ctx.journal.insert({ ...rowOf(request, effectKeyOf(ctx.branchId, call.id)), status: "queued" });
  finishCall(ctx, { request, startedAt: Date.now() }, result, status, 0, { providerExecuted: true });
  return true;
}
