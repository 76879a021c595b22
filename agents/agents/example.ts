import { defineAgent } from "@standardagents/spec";

/**
 * The agent `npm start` serves: tells the time, rolls dice and keeps notes for the conversation.
 * Without a model provider configured, the scripted model plays `script` so a new thread shows
 * tool calls end to end.
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
  tools: ["add_note", "compute", "get_current_time", "list_notes", "roll_dice"],
  script: [
    {
      text: "Let me check the time and roll two dice.",
      toolCalls: [{ name: "get_current_time" }, { name: "roll_dice", arguments: { sides: 6, count: 2 } }],
    },
    { text: "Done: the tool results above show the time and the roll. Ask me to note something and I will keep it here." },
  ],
});
