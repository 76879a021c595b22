import { defineTool } from "@standardagents/spec";

// A named export only: the registry needs the default export.
export const tool = defineTool({
  description: "A tool exported without default",
  execute: async () => ({ status: "success", result: "ok" }),
});
