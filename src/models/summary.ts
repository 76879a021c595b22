/**
 * What compaction hands a summarizer: older messages as a plain transcript (so no provider's
 * tool-call rules apply to it), and the scripted model's extractive summary, which needs no model.
 * @module
 */
import type { Message } from "../protocol.js";

/** Input of one summarizing pass: the summary so far, and the next older messages it must fold in. */
export interface SummaryInput {
  previous: string | null;
  messages: readonly Message[];
  /** Upper bound on the summary's length, in estimated tokens. */
  maxTokens: number;
  signal: AbortSignal;
}

/** Instructions of a summarizing request (a model summarizes; the scripted model extracts). */
export const SUMMARY_INSTRUCTIONS =
  "You compact the older part of a conversation so it can continue within a limited context. " +
  "Write a summary that keeps the user's task and goals, decisions made, facts learned from tool results, " +
  "open questions and anything promised. Be concise; plain text; no preamble.";

/** Longest excerpt of one message in a transcript, in characters. */
const EXCERPT = 2000;

const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max)}…`);

/** Messages as transcript lines: `role: text`, calls and results spelled out. */
export function transcript(messages: readonly Message[]): string {
  const lines: string[] = [];
  for (const m of messages) {
    if (m.role === "tool") {
      lines.push(`result of ${m.name ?? "a call"}: ${clip(m.content, EXCERPT)}`);
      continue;
    }
    if (m.content !== "") lines.push(`${m.role}: ${clip(m.content, EXCERPT)}`);
    for (const c of m.toolCalls ?? []) lines.push(`${m.role} called ${c.name}(${clip(c.arguments, EXCERPT)})`);
  }
  return lines.join("\n");
}

/** The user message of a summarizing request. */
export function summaryPrompt(input: SummaryInput): string {
  const head = input.previous ? `Summary so far:\n${input.previous}\n\n` : "";
  return `${head}Messages to fold into the summary (oldest first):\n${transcript(input.messages)}\n\nWrite the updated summary in at most ${input.maxTokens * 3} words.`;
}

const TASK = "Task (first user message): ";
const LATEST = "Latest compacted user message: ";

/**
 * A summary made without a model: the thread's first user message (its task, carried over from
 * the previous summary) and the latest user message compacted. Deterministic, so scripted runs
 * and tests know exactly what the model would be told.
 */
export function extractiveSummary(input: SummaryInput): string {
  const budget = Math.max(16, input.maxTokens * 4);
  const users = input.messages.filter((m) => m.role === "user" && m.content !== "");
  const carried = input.previous?.split("\n").find((l) => l.startsWith(TASK));
  const task = carried ?? (users[0] ? `${TASK}${clip(users[0].content, Math.floor(budget / 2))}` : undefined);
  const latest = users.at(-1);
  const lines = [task, latest && latest !== users[0] ? `${LATEST}${clip(latest.content, Math.floor(budget / 3))}` : undefined];
  return clip(lines.filter((l) => l !== undefined).join("\n"), budget);
}
