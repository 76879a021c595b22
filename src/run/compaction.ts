/**
 * Compaction: when messages fall out of the history window that no summary covers yet, the
 * older part of the conversation is summarized once into a stored summary, which later requests
 * reuse at their head. Each compaction keeps the newest half of the budget as it is, so the next
 * one comes only after another half-window of conversation; a backlog larger than a model's input
 * is folded in pieces, each pass extending the summary so far.
 * @module
 */
import { errorMessage } from "../errors.js";
import type { Message } from "../protocol.js";
import { type Model, ModelError } from "../models/model.js";
import { SUMMARY_INSTRUCTIONS, type SummaryInput, summaryPrompt } from "../models/summary.js";
import { readStep } from "./step.js";
import type { ThreadMeter } from "../usage/meter.js";
import { AttemptTally } from "../usage/attempt.js";
import { DEFAULT_STEP_DEADLINES, type StepDeadlines, withDeadlines } from "./step-deadline.js";
import { MAX_MODEL_ATTEMPTS, modelBackoffMs } from "./model-request.js";
import { type HistorySource, type HistorySummary, NEWEST, type Window, estimateTokens, selectWindow, summaryMessage } from "./window.js";

/** How a history window is kept within its budget. */
export interface HistoryPolicy {
  /** The window's token budget. */
  maxTokens: number;
  /** `summarize` (default) folds what leaves the window into a stored summary; `drop` leaves it out. */
  compaction: "summarize" | "drop";
}

/** An agent's `history` option: how its requests' windows are bounded. */
export interface HistoryOptions {
  /** Token budget of a request's history; default half the model's context window. */
  maxTokens?: number;
  /** `summarize` (default): what leaves the window is summarized once and kept at its head; `drop`: it is left out. */
  compaction?: "summarize" | "drop";
  /** Model that writes summaries, as `"<provider>:<model id>"`; default the agent's own. */
  summaryModel?: string;
}

/**
 * Checks a `history` option.
 * @throws via `fail` (an `invalid_config` naming the definition) for a malformed option.
 */
export function checkHistoryOptions(fail: (rule: string) => never, history: unknown, modelPattern: RegExp): void {
  if (history === undefined) return;
  if (typeof history !== "object" || history === null || Array.isArray(history)) fail("history must be { maxTokens?, compaction?, summaryModel? }");
  const h = history as Record<string, unknown>;
  if (h.maxTokens !== undefined && (!Number.isInteger(h.maxTokens) || (h.maxTokens as number) < MIN_WINDOW_TOKENS)) {
    fail(`history.maxTokens must be an integer of at least ${MIN_WINDOW_TOKENS}`);
  }
  if (h.compaction !== undefined && h.compaction !== "summarize" && h.compaction !== "drop") fail('history.compaction must be "summarize" or "drop"');
  if (h.summaryModel !== undefined && (typeof h.summaryModel !== "string" || !modelPattern.test(h.summaryModel))) {
    fail(`history.summaryModel must be "<provider>:<model id>", got ${JSON.stringify(h.summaryModel)}`);
  }
}

/** The stored compaction summaries of a thread's own conversation; only the newest is read. */
export interface HistorySummaries {
  latest(): HistorySummary | null;
  save(summary: HistorySummary): void;
}

/** What compaction reads and writes. */
export interface CompactionHost {
  source: HistorySource & {
    /** Up to `limit` messages with `after < id < before`, oldest first. */
    oldestFirst(after: number, before: number, limit: number): Message[];
  };
  latest(): HistorySummary | null;
  save(summary: HistorySummary): void;
  /** The model that writes summaries (the agent's, or the one configured for summaries), made when first needed. */
  model(): Promise<Model>;
  threadId: string;
  turnId: string;
  signal: AbortSignal;
  /** Deadlines of each summarizing request; absent: the defaults. */
  deadlines?: StepDeadlines;
  /** Meters each summarizing request like a model step (src/usage/); absent: not metered. */
  meter?: ThreadMeter;
  /** Given the window when nothing needed compacting: the request's window, not selected twice. */
  fits?(window: Window): void;
}

/** Smallest window budget, in tokens. */
export const MIN_WINDOW_TOKENS = 256;

/** The window budget: the configured one, else half the model's context (the rest is left for tools, system and output). */
export function windowTokens(model: Pick<Model, "contextTokens">, configured?: number): number {
  return Math.max(MIN_WINDOW_TOKENS, configured ?? Math.floor((model.contextTokens ?? 128_000) / 2));
}

/**
 * Compacts when the window leaves out messages no summary covers.
 * @returns the new summary, or null when nothing needed compacting.
 * @throws Error when the summarizing model fails (after its retries); nothing is stored then.
 */
export async function compactIfNeeded(host: CompactionHost, budget: number): Promise<HistorySummary | null> {
  const previous = host.latest();
  const floor = previous?.throughId ?? 0;
  const window = selectWindow(host.source, Math.max(1, budget - (previous?.tokens ?? 0)), floor);
  if (window.startId === NEWEST || host.source.newestFirst(window.startId, floor, 1).length === 0) {
    host.fits?.(window);
    return null;
  }
  // Keep the newest half of the budget; everything above the floor before it is folded in now.
  const keep = selectWindow(host.source, Math.floor(budget / 2), floor);
  const maxTokens = Math.max(64, Math.floor(budget / 4));
  const passTokens = Math.max(MIN_WINDOW_TOKENS, Math.floor(budget / 2));
  const model = await host.model();
  let content = previous?.content ?? null;
  let covered = previous?.messages ?? 0;
  let through = floor;
  let batch: Message[] = [];
  let batchTokens = 0;
  const fold = async () => {
    content = await summarize(host, model, { previous: content, messages: batch, maxTokens, signal: host.signal });
    covered += batch.length;
    through = batch.at(-1)!.id;
    batch = [];
    batchTokens = 0;
  };
  for (let after = floor; ; ) {
    const rows = host.source.oldestFirst(after, keep.startId, 64);
    for (const m of rows) {
      const t = estimateTokens(m);
      if (batch.length > 0 && batchTokens + t > passTokens) await fold();
      batch.push(m);
      batchTokens += t;
    }
    if (rows.length < 64) break;
    after = rows.at(-1)!.id;
  }
  if (batch.length > 0) await fold();
  if (through === floor) return null;
  const text = content ?? "";
  const draft: HistorySummary = { throughId: through, content: text, tokens: 0, messages: covered, model: model.id, createdAt: Date.now() };
  const summary = { ...draft, tokens: estimateTokens(summaryMessage(draft)) };
  host.save(summary);
  return summary;
}

/** One summarizing pass: the model's own `summarize`, or a request with the summarizing instructions. */
async function summarize(host: CompactionHost, model: Model, input: SummaryInput): Promise<string> {
  const limit = input.maxTokens * 4;
  const clip = (text: string) => (text.length <= limit ? text : text.slice(0, limit));
  if (model.summarize) return clip(await model.summarize(input));
  for (let attempt = 1; ; attempt++) {
    const messages: Message[] = [{ id: 0, role: "user", content: summaryPrompt(input), silent: false, createdAt: Date.now() }];
    // --- usage: reserved against the budgets like any model request (throws BudgetExceeded) ---
    const ticket = await host.meter?.begin({ turnId: host.turnId, step: 0, model: model.id, ...(model.contextTokens ? { contextTokens: model.contextTokens } : {}), ...(model.userPaid ? { userPaid: true } : {}), system: SUMMARY_INSTRUCTIONS, messages, tools: [] });
    // What the pass received: a failed pass was sent, so it is recorded and charged from this.
    const tally = new AttemptTally();
    try {
      const step = await readStep(
        withDeadlines(
          (signal) =>
            model.stream({
              threadId: host.threadId,
              turnId: host.turnId,
              step: 0,
              system: SUMMARY_INSTRUCTIONS,
              messages,
              tools: [],
              ...(ticket?.settings !== undefined ? { settings: ticket.settings } : {}),
              signal,
            }),
          host.signal,
          host.deadlines ?? DEFAULT_STEP_DEADLINES,
        ),
        tally,
      );
      if (ticket) await host.meter!.answered(ticket, step.usage, step.text, step.finishReason);
      if (step.text.trim() === "") throw new Error("the summarizing model answered with no text");
      return clip(step.text.trim());
    } catch (e) {
      // Records and charges a pass that failed after it was sent (one recorded already is left as it is).
      if (ticket) await host.meter!.failed(ticket, tally);
      if (!(e instanceof ModelError && e.retryable) || attempt >= MAX_MODEL_ATTEMPTS || host.signal.aborted) {
        throw new Error(`compacting the history with ${model.id} failed: ${errorMessage(e)}`);
      }
      await new Promise((r) => setTimeout(r, modelBackoffMs(attempt, e.retryAfterMs)));
    }
  }
}
