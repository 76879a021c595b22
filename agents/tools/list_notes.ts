import { defineTool } from "@standardagents/spec";
import { z } from "zod";
import { readNotes } from "../lib/notes.js";

/** Lists the notes add_note saved in this thread, optionally filtered by text. */
export default defineTool({
  description:
    "List the notes saved in this conversation with add_note, oldest first, as JSON [{ title, body, createdAt }]. Pass query to keep only notes whose title or body contains it.",
  args: z.object({
    query: z.string().optional().describe("Only notes containing this text (case-insensitive)"),
  }),
  effect: "read",
  execute: async (state, args) => {
    const needle = args.query?.toLowerCase();
    const notes = (await readNotes(state)).filter(
      (n) => needle === undefined || `${n.title}\n${n.body}`.toLowerCase().includes(needle),
    );
    if (notes.length === 0) {
      return { status: "success", result: needle === undefined ? "No notes saved yet." : `No notes contain "${args.query}".` };
    }
    const shown = notes.map(({ title, body, createdAt }) => ({ title, body, createdAt }));
    return { status: "success", result: JSON.stringify(shown) };
  },
});
