import { definePrompt } from "@standardagents/spec";

/**
 * A prompt offered as a tool (by the support prompt): the call runs it as a nested loop, one
 * level down, and its final text is the tool result.
 */
export default definePrompt({
  toolDescription: "Draft a short, friendly reply to a customer from the facts you give it.",
  system: "You write short, friendly replies for a shop's support team: two sentences at most, no promises beyond the facts given.",
  tools: ["lookup_order"],
});
