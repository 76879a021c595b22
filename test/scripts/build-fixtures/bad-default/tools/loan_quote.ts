import { defineTool } from "@standardagents/spec";

// A `default` its own schema refuses is an annotation error, not a broken tool: the build warns.
export default defineTool({
  description: "Quote a loan",
  args: { type: "object", properties: { years: { type: "integer", default: "5 years" } } },
  effect: "read",
  execute: async () => ({ status: "success", result: "ok" }),
});
