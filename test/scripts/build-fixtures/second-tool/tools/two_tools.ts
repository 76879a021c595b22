import { defineTool } from "@standardagents/spec";

// One tool per file: the named export is a second tool the registry would never see.
export const hidden = defineTool({
  description: "A second tool in the same file",
  execute: async () => ({ status: "success", result: "hidden" }),
});

export default defineTool({
  description: "The file's own tool",
  execute: async () => ({ status: "success", result: "ok" }),
});
