import { defineTool } from "@standardagents/spec";
import { z } from "zod";

/** Benchmark tool: emits `count` custom `burst` events to the thread's subscribers (fan-out bench). */
export default defineTool({
  description: "Benchmark fan-out: emits count burst events.",
  args: z.object({ count: z.number().int().min(1).max(5000), text: z.string().max(1000) }),
  effect: "read",
  execute: async (state, args) => {
    for (let i = 0; i < args.count; i++) state.emit("burst", { i, text: args.text });
    return { status: "success", result: String(args.count) };
  },
});
