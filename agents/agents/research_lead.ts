import { defineAgent } from "@standardagents/spec";

/**
 * Splits a question into three sub-questions, runs topic_researcher detached for each, and
 * reports once all three findings are in. Each completion is a message that says how many runs
 * are still running; the report waits for the one that says none is (with the scripted model, its
 * `waitFor` step), however the completions are grouped into turns.
 */
export default defineAgent({
  description: "Researches a question with three background sub-runs and reports when all are done.",
  system:
    "Split the user's question into three sub-questions and call topic_researcher once for each, all three in one step; then say that the research has started. " +
    "Findings arrive later as messages that start with [background run. Until one says no background run is still running, only acknowledge it in one short line. " +
    "When it does, write the report from all three findings.",
  tools: ["topic_researcher"],
  script: [
    {
      toolCalls: [
        { id: "part_1", name: "topic_researcher", arguments: { input: "What changed this year?" } },
        { id: "part_2", name: "topic_researcher", arguments: { input: "Who is affected?" } },
        { id: "part_3", name: "topic_researcher", arguments: { input: "What comes next?" } },
      ],
    },
    { text: "Three research runs started; I will report when all three are done." },
    // Completions arrive one by one or together: the report waits for the one that says none is left
    // (earlier completion turns end with an empty reply).
    {
      waitFor: "[no background run is still running]",
      text: "Report: all three research runs are done. What changed, who is affected, and what comes next are summed up above.",
    },
  ],
});
