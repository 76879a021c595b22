import { defineTool } from "@standardagents/spec";
import { z } from "zod";

/** Benchmark tool: a read that answers with its input (bench/compare). */
export default defineTool({
  description: "Benchmark read: returns its input as JSON.",
  args: z.object({ n: z.number().int(), text: z.string().max(1000) }),
  effect: "read",
  execute: async (_state, args) => ({ status: "success", result: JSON.stringify(args) }),
});
