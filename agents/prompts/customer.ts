import { definePrompt } from "@standardagents/spec";

/** Side b of the support desk: a simulated customer, built from the thread's arguments. */
export default definePrompt({
  toolDescription: "Play a customer of the shop who asks about an order.",
  system: (args) =>
    [
      `You are ${String(args.customerName ?? "a customer")}, writing to the shop's support about order ${String(args.orderId ?? "A-1001")}, which has not arrived.`,
      "Answer as the customer would, in one or two sentences. When your question is answered, call end_chat.",
    ].join("\n"),
  tools: ["end_chat"],
});
