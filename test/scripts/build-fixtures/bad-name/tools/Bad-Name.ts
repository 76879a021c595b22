import { defineTool } from "@standardagents/spec";

// Valid tool; only the file name (upper case, hyphen) breaks the naming rule.
export default defineTool({
  description: "A tool whose file name is not a valid tool name",
  execute: async () => ({ status: "success", result: "ok" }),
});
