import { defineHook } from "@standardagents/spec";

/** How often each tool ran in a thread, and how often it failed: `tool_stats` in its key-value store. */
export default defineHook("tool_call_finished", async (state, call) => {
  const stats = (await state.getValue<Record<string, { calls: number; failed: number }>>("tool_stats")) ?? {};
  const entry = stats[call.toolName] ?? { calls: 0, failed: 0 };
  stats[call.toolName] = { calls: entry.calls + 1, failed: entry.failed + (call.isError ? 1 : 0) };
  await state.setValue("tool_stats", stats);
});
