import { defineAgent } from "@standardagents/spec";

/**
 * Two sides: the shop's support agent (side a, prompts/support.ts) and a simulated customer
 * (side b, prompts/customer.ts) take turns until the customer calls end_chat. Create a thread
 * with `{ "agent": "support_desk", "arguments": { "customerName": "Ada", "orderId": "A-1001" } }`.
 */
export default defineAgent({
  description: "A support agent and a simulated customer talk until the customer ends the chat.",
  sideA: { prompt: "support", maxSteps: 8 },
  sideB: { prompt: "customer", stopTool: "end_chat", maxSteps: 4 },
  maxSteps: 12,
});
