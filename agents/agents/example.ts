import { defineAgent } from "@standardagents/spec";

/**
 * The example agent the README tour creates (`{"agent": "example"}`). It lists no `tools`, so it
 * offers every tool in agents/tools/, including the ones you add.
 */
export default defineAgent({
  description: "A small assistant that tells the time, rolls dice and keeps notes for the conversation.",
  system: [
    "You are weft's example assistant. Keep answers short.",
    "Call get_current_time whenever the answer depends on the date or time; never guess it.",
    "Call roll_dice for dice rolls and random picks.",
    "Call add_note when the user asks you to remember something, and list_notes to read notes back.",
    "Call compute to calculate with JavaScript, for example over many dice rolls or the saved notes.",
  ].join("\n"),
});
