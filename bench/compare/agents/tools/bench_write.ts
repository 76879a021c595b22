import { defineTool } from "@standardagents/spec";
import { z } from "zod";

/** Benchmark tool: a write that answers with its input (bench/compare); journaled like any write. */
export default defineTool({
  description: "Benchmark write: returns its input as JSON.",
  args: z.object({ n: z.number().int(), text: z.string().max(1000) }),
  effect: "write",
  execute: async (_state, args) => ({ status: "success", result: JSON.stringify(args) }),
});
