import { defineAgent } from "@standardagents/spec";

/**
 * An agent offered as a tool (`exposeAsTool`, by the support prompt): each call runs it in a
 * child thread created with the call's arguments, and its last answer is the tool result. With
 * the scripted model the child plays `script`.
 */
export default defineAgent({
  description: "Answers questions about parcels in transit.",
  exposeAsTool: true,
  toolDescription: "Ask the shipping team about a parcel in transit; it looks the order up and answers in a thread of its own.",
  system: "You are the shop's shipping expert. Look the order up, then say in one sentence where the parcel is and when it arrives.",
  tools: ["lookup_order"],
  script: [
    { toolCalls: [{ name: "lookup_order", arguments: { orderId: "A-1001" } }] },
    { text: "A-1001 left the Parcelo depot and is due on 2026-12-02." },
  ],
});
