import { defineTool } from "@standardagents/spec";

/** A client tool: only a model's call can be answered by the chat's client, so no schedule may target it. */
export default defineTool({
  description: "Ask the user to pick a color in their browser",
  executionMode: "client",
});
