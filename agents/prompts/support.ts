import { definePrompt } from "@standardagents/spec";

/** Side a of the support desk: the shop's support agent. */
export default definePrompt({
  toolDescription: "Answer a customer's question about an order, as the shop's support agent.",
  system: (args) =>
    [
      `You are the support agent of ${String(args.shopName ?? "the tea shop")}. Be brief and concrete.`,
      "Look orders up with lookup_order before saying anything about them.",
      "For a late parcel, ask shipping_expert; to word a careful answer, use draft_reply.",
    ].join("\n"),
  tools: ["lookup_order", "shipping_expert", "draft_reply"],
});
