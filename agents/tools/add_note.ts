import { defineTool } from "@standardagents/spec";
import { z } from "zod";
import { appendNote } from "../lib/notes.js";

/** Saves a note in the thread's durable key-value store; list_notes reads them back. */
export default defineTool({
  description:
    "Save a short note in this conversation so it can be read back later with list_notes. Use it when the user asks you to remember, note or write something down.",
  args: z.object({
    title: z.string().min(1).max(120).describe("A short title for the note"),
    body: z.string().max(4000).describe("The text of the note"),
  }),
  effect: "write",
  dryRunResult: (input) => `Dry run: the note "${input.title}" was not saved.`,
  execute: async (state, args, call) => {
    // The call id names the note, so a second run of the same call cannot add it twice.
    const total = await appendNote(state, {
      id: call.callId,
      title: args.title,
      body: args.body,
      createdAt: new Date().toISOString(),
    });
    return { status: "success", result: `Saved the note "${args.title}". This conversation has ${total} note(s).` };
  },
});
