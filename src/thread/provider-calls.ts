/**
 * Calls the provider ran itself (tools with `executionMode: "provider"`, such as web search).
 * weft never dispatches them; it records each one like any other call, with the provider's result,
 * so the call list, the event stream and the `tool_call_finished` hook see them too.
 * @module
 */
import type { CallStatus, EventPayloads, ToolCallRequest, ToolResult } from "../protocol.js";
import type { CallExecution, CallRequest } from "../calls/host.js";
import { effectKeyOf } from "../calls/host.js";
import { finishCall } from "../calls/record.js";
import { createDispatchHost } from "./dispatch-host.js";
import type { ThreadEngine } from "./engine.js";
import { toolHook } from "./hooks.js";

/**
 * Records the provider-executed calls of one model step (call records, `tool_call_finished`,
 * the hook). A call id already recorded is left alone, so a step read twice records once.
 * @throws WeftError `hook_failed` when the `tool_call_finished` hook throws (the record stands).
 */
export async function recordProviderCalls(engine: ThreadEngine, execution: CallExecution | null, turnId: string, calls: readonly ToolCallRequest[]): Promise<void> {
  const { store } = engine;
  for (const call of calls) {
    if (!call.providerExecuted || store.calls.get(call.id)) continue;
    const text = JSON.stringify(call.providerResult?.value ?? null) ?? "null";
    const isError = call.providerResult?.isError === true;
    const result: ToolResult = isError ? { status: "error", error: text } : { status: "success", result: text };
    const status: CallStatus = isError ? "failed" : "succeeded";
    const finished: EventPayloads["tool_call_finished"][] = [];
    // Recorded through the one module that writes call results, like any call.
    const host = createDispatchHost(engine, execution, engine.catalogFor(execution), (data) => finished.push(data));
    const request: CallRequest = { callId: call.id, toolName: call.name, args: { text: call.arguments }, source: "model", turnId };
    store.calls.insert({ callId: call.id, toolName: call.name, source: "model", status: "queued", argsText: call.arguments, effectKey: effectKeyOf(engine.meta.threadId, call.id), turnId });
    finishCall(host, { request, startedAt: Date.now() }, result, status, 0, { providerExecuted: true });
    for (const data of finished) await toolHook(engine, execution, "tool_call_finished", data);
  }
}
