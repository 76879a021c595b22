import { defineTool } from "@standardagents/spec";
import { z } from "zod";

// A second authoring folder's tool, merged with agents/ into one registry.
export default defineTool({
  description: "Check whether an item is in stock",
  args: z.object({ item: z.string() }),
  effect: "read",
  execute: async (_state, args) => ({ status: "success", result: `${args.item}: in stock` }),
});
