import { defineTool } from "@standardagents/spec";

// `\-` outside a class is fine without the u flag but a syntax error with it, and JSON Schema
// patterns are compiled with the u flag: every call would fail, so the build refuses it.
export default defineTool({
  description: "A tool whose JSON Schema pattern is not a u-flag regular expression",
  args: { type: "object", properties: { code: { type: "string", pattern: "^A\\-[0-9]+$" } } },
  execute: async () => ({ status: "success", result: "ok" }),
});
