import { defineTool } from "@standardagents/spec";

// A client tool is answered by the client: a body here as well is refused.
export default defineTool({
  description: "Ask the user to pick a color in their browser",
  executionMode: "client",
  // @ts-expect-error: the types refuse it too; this file shows the build's refusal of untyped code.
  execute: async () => ({ status: "success", result: "red" }),
});
