import { defineTool } from "@standardagents/spec";

// Tool arguments are named, so a JSON Schema args must describe an object, not an array.
export default defineTool({
  description: "A tool whose JSON Schema args are an array",
  // @ts-expect-error: JsonSchemaObject requires type "object"; the build must refuse it at run time too.
  args: { type: "array", items: { type: "string" } },
  execute: async () => ({ status: "success", result: "ok" }),
});
