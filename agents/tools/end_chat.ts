import { defineTool } from "@standardagents/spec";
import { z } from "zod";

/**
 * The simulated customer's way out: the support desk agent names it as side b's stop tool, so
 * a successful call ends the conversation with `stoppedBy: "b"`.
 */
export default defineTool({
  description: "End the support chat, saying whether your problem was solved.",
  args: z.object({ solved: z.boolean().describe("Whether support solved your problem") }),
  effect: "read",
  execute: async (_state, args) => ({ status: "success", result: args.solved ? "Chat ended: solved." : "Chat ended: not solved." }),
});
