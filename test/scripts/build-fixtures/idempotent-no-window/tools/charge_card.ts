import { defineTool } from "@standardagents/spec";

// weft's effect table: effect idempotent requires dedupWindowMs; this one omits it.
export default defineTool({
  description: "Charge a card, declared idempotent without a dedup window",
  effect: "idempotent",
  execute: async () => ({ status: "success", result: "charged" }),
});
