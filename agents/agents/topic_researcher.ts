import { defineAgent } from "@standardagents/spec";

/**
 * A background sub-agent (`background: true`): each call by research_lead runs it detached in a
 * child thread of its own and answers at once with a run id; its findings reach the lead later,
 * once, as a message (docs/schedules.md, "Background runs"). With the scripted model it plays `script`.
 */
export default defineAgent({
  description: "Researches one sub-question on its own.",
  exposeAsTool: true,
  background: true,
  toolDescription:
    "Research one sub-question in the background. Answers at once with a run id; the findings arrive later as a message that starts with [background run.",
  system: "You research one sub-question. Answer in at most three sentences, with what you are sure of first.",
  tools: ["get_current_time"],
  script: [{ text: "Findings: three sentences on the sub-question, the surest first." }],
});
