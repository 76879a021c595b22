import { defineTool } from "@standardagents/spec";
import { z } from "zod";
import { ORDERS } from "../lib/orders.js";

/** Looks up one of the demo shop's orders (agents/lib/orders.ts). */
export default defineTool({
  description: "Look up an order of the shop by its id (like A-1001): item, status, carrier and expected delivery date.",
  args: z.object({ orderId: z.string().describe("Order id, like A-1001") }),
  effect: "read",
  execute: async (_state, args) => {
    const order = Object.hasOwn(ORDERS, args.orderId) ? ORDERS[args.orderId] : undefined;
    if (!order) return { status: "error", error: `no order ${args.orderId}; known orders: ${Object.keys(ORDERS).join(", ")}` };
    return { status: "success", result: JSON.stringify(order) };
  },
});
