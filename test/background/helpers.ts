/** What the background-run tests share: a thread's completions read back. */
import { eventsOf, json } from "../helpers.js";

export type Frame = { type: string; data: Record<string, unknown> };

/** The thread's `run_finished` events. */
export const finishedOf = async (id: string) => ((await eventsOf(id)) as Frame[]).filter((e) => e.type === "run_finished");

/** The messages that report the run `runId`'s completion to its parent. */
export const completionMessages = async (id: string, runId: string) =>
  ((await json("GET", `/threads/${id}/messages?limit=1000`)).body.messages as { content: string }[]).filter((m) => m.content.startsWith(`[background run ${runId} `));
