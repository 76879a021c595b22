import { defineTool } from "@standardagents/spec";
import { z } from "zod";
import { ORDERS } from "../lib/orders.js";

/** The key-value entry holding a thread's refunds: order ids, oldest first. */
const REFUNDS_KEY = "refunds";

/**
 * Refunds one of the demo shop's orders. Money moves, so a person approves each call first
 * (`needsApproval`); the refund is kept under `refunds` in the thread's key-value store.
 */
export default defineTool({
  description: "Refund an order of the shop in full (like A-1001). A person approves every refund before it is made.",
  args: z.object({
    orderId: z.string().describe("Order id, like A-1001"),
    reason: z.string().max(500).describe("Why the customer gets the refund"),
  }),
  effect: "write",
  needsApproval: true,
  execute: async (state, args) => {
    const order = Object.hasOwn(ORDERS, args.orderId) ? ORDERS[args.orderId] : undefined;
    if (!order) return { status: "error", error: `no order ${args.orderId}; known orders: ${Object.keys(ORDERS).join(", ")}` };
    const refunds = (await state.getValue<string[]>(REFUNDS_KEY)) ?? [];
    if (!refunds.includes(order.orderId)) await state.setValue(REFUNDS_KEY, [...refunds, order.orderId]);
    return { status: "success", result: `Refunded order ${order.orderId} (${order.item}).` };
  },
});
