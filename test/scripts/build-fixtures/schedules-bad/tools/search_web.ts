import { defineTool } from "@standardagents/spec";

/** Run by the model's provider, never by weft: no schedule may target it. */
export default defineTool({
  description: "Search the web",
  executionMode: "provider",
  executionProvider: "openai",
  execute: async () => ({ status: "success", result: "ran locally" }),
});
