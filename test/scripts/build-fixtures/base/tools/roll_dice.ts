import { defineTool } from "@standardagents/spec";
import { z } from "zod";

/** Rolls fair dice with the platform's cryptographic random source. */
export default defineTool({
  description:
    "Roll one or more fair dice. Returns JSON { rolls, total }. Use it for games, random picks or anything that needs a fair random number.",
  args: z.object({
    sides: z.number().int().min(2).max(100).default(6).describe("Faces on each die"),
    count: z.number().int().min(1).max(10).default(1).describe("How many dice to roll"),
  }),
  effect: "read",
  execute: async (_state, args) => {
    const rolls = Array.from({ length: args.count }, () => rollOne(args.sides));
    const total = rolls.reduce((sum, n) => sum + n, 0);
    return { status: "success", result: JSON.stringify({ rolls, total }) };
  },
});

/** A uniform integer in 1..sides; rejection sampling avoids the modulo bias of `% sides`. */
function rollOne(sides: number): number {
  const limit = Math.floor(0x1_0000_0000 / sides) * sides;
  const buffer = new Uint32Array(1);
  for (;;) {
    crypto.getRandomValues(buffer);
    const value = buffer[0] ?? 0;
    if (value < limit) return (value % sides) + 1;
  }
}
