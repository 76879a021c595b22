import { defineTool } from "@standardagents/spec";
import { z } from "zod";

/**
 * Lets the model compute with code over this thread's tools: it writes an ES module, the sandbox
 * runs it (no network, no env, a deadline and a memory limit), and the module may import the
 * tools below from "tools", each an async function taking the tool's input.
 */
export default defineTool({
  description: [
    "Run JavaScript to compute an answer. Write an ES module whose default export (may be async) returns the answer as JSON-like data.",
    'It may `import { roll_dice, list_notes } from "tools"`: each is an async function taking the tool\'s input object and returning its parsed result.',
    "console.log output is returned too. No network; about 5 seconds and 128 MB at most.",
  ].join(" "),
  args: z.object({ code: z.string().min(1).describe("An ES module with a default export") }),
  effect: "read",
  uses: ["roll_dice", "list_notes"],
  execute: async (state, args) => {
    const run = await state.runCode(args.code, { imports: { tools: ["roll_dice", "list_notes"] }, filename: "compute.js" });
    if (run.status !== "success") return { status: "error", error: `${run.status}: ${run.error}${run.logs.length ? `\nlogs:\n${run.logs.join("\n")}` : ""}` };
    return { status: "success", result: JSON.stringify({ value: run.value ?? null, logs: run.logs }) };
  },
});
