import { defineTool } from "@standardagents/spec";

// Built together with agents/, this shadows the example's get_current_time.
export default defineTool({
  description: "A second get_current_time",
  execute: async () => ({ status: "success", result: "never" }),
});
