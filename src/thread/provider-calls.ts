/**
 * Calls the provider ran itself (tools with `executionMode: "provider"`, such as web search).
 * weft never dispatches them; it records each one like any other call, with the provider's result,
 * so the call list, the event stream and the `tool_call_finished` hook see them too.
 * @module
 */
import type { CallStatus, ToolCallRequest, ToolResult } from "../protocol.js";
import type { CallExecution } from "../tools/host.js";
import { effectKeyOf } from "../tools/host.js";
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
    store.atomically(() => {
      store.calls.insert({ callId: call.id, toolName: call.name, source: "model", status: "queued", argsText: call.arguments, effectKey: effectKeyOf(engine.meta.threadId, call.id), turnId });
      store.calls.finish(call.id, status, result, { attempts: 0, durationMs: 0 });
    });
    const finished = {
      callId: call.id,
      toolName: call.name,
      source: "model" as const,
      status,
      isError,
      ...(isError ? { error: text } : { result: text }),
      durationMs: 0,
      attempts: 0,
      providerExecuted: true,
    };
    engine.emit("tool_call_finished", finished);
    await toolHook(engine, execution, "tool_call_finished", finished);
  }
}
