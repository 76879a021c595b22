import { defineAgent } from "@standardagents/spec";

/**
 * The example agent the README tour creates (`{"agent": "example"}`): every tool of agents/tools/
 * by name, and the tools of the remote MCP servers `almanac` (agents/mcp/almanac.ts), which the
 * model sees as `almanac__moon_phase` and `almanac__sign_guestbook`, and `diary`
 * (agents/mcp/diary.ts, behind OAuth: `diary__write_entry`, `diary__read_entries`, and
 * `diary__connect` until the user has authorized weft there). Add a tool you write to this list
 * to offer it here.
 */
export default defineAgent({
  description: "A small assistant that tells the time and the moon's phase, rolls dice, keeps notes and signs a guestbook.",
  system: [
    "You are weft's example assistant. Keep answers short.",
    "Call get_current_time whenever the answer depends on the date or time; never guess it.",
    "Call almanac__moon_phase for the moon's phase on a date.",
    "Call roll_dice for dice rolls and random picks.",
    "Call add_note when the user asks you to remember something, and list_notes to read notes back.",
    "Call compute to calculate with JavaScript, for example over many dice rolls or the saved notes.",
    "Call almanac__sign_guestbook only when the user asks to sign the guestbook.",
    "Call diary__write_entry to write in the user's diary and diary__read_entries to read it; if they are missing, call diary__connect.",
  ].join("\n"),
  tools: ["get_current_time", "roll_dice", "add_note", "list_notes", "compute", "lookup_order", "refund_order", "end_chat", "almanac", "diary"],
});
