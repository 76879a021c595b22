/**
 * The demo shop's orders, for the support desk example. A real deployment would call its order
 * system here; the table keeps the example self-contained and its answers stable.
 * @module
 */

/** One order as lookup_order reports it. */
export interface Order {
  orderId: string;
  item: string;
  status: "processing" | "shipped" | "delivered";
  /** ISO-8601 date the carrier expects to deliver. */
  expectedDelivery: string;
  carrier: string;
}

/** The demo orders, by id. */
export const ORDERS: Readonly<Record<string, Order>> = {
  "A-1001": { orderId: "A-1001", item: "blue kettle", status: "shipped", expectedDelivery: "2026-12-02", carrier: "Parcelo" },
  "A-1002": { orderId: "A-1002", item: "tea sampler", status: "processing", expectedDelivery: "2026-12-05", carrier: "Parcelo" },
  "A-1003": { orderId: "A-1003", item: "mug set", status: "delivered", expectedDelivery: "2026-11-27", carrier: "Swift Post" },
};
