import { defineTool } from "@standardagents/spec";

// Valid tool; only its place in a sub-folder of tools/ breaks the layout rule.
export default defineTool({
  description: "A tool inside a nested folder",
  execute: async () => ({ status: "success", result: "ok" }),
});
