import { defineHook } from "@standardagents/spec";

// The file name must be the hook's name (tool_call_started.ts).
export default defineHook("tool_call_started", () => {});
