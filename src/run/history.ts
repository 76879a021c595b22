/**
 * The history windows of a thread's model requests (see run/window.ts and run/compaction.ts):
 * the thread's own conversation with its compaction summary, and the conversation of a nested
 * prompt run. Every read is a keyset query over the messages index.
 * @module
 */
import type { Message } from "../protocol.js";
import type { Model } from "../models/model.js";
import { type CompactionHost, type HistoryPolicy, compactIfNeeded, windowTokens } from "./compaction.js";
import type { Execution } from "./execution.js";
import { NEWEST, type Window, historyWindow, selectWindow, summaryMessage } from "./window.js";
import type { RunTables, RunWorld } from "./world.js";
import { resolveModelSpec } from "./model-choice.js";
import { modelDeadlinesOf } from "./model-deadlines.js";

/** Keyset reads of the conversation at `depth`, above message id `floor`. */
export function conversation(store: RunTables, depth = 0, floor = 0): CompactionHost["source"] {
  return {
    newestFirst: (before, f, limit) => store.messages.newestFirst(depth, before, Math.max(f, floor), limit),
    oldestFirst: (after, before, limit) => store.messages.oldestFirst(depth, Math.max(after, floor), before, limit),
  };
}

/** The window policy of a thread's requests to `model`: the agent's `history` option over the model's defaults. */
export function policyOf(engine: RunWorld, model: Model): HistoryPolicy {
  const options = engine.agent.history;
  return { maxTokens: windowTokens(model, options?.maxTokens), compaction: options?.compaction ?? "summarize" };
}

/** The thread's own conversation as a request to `model` sees it now: the summary, then the newest messages that fit. */
export function conversationWindow(engine: RunWorld, model: Model): Message[] {
  const policy = policyOf(engine, model);
  const summary = policy.compaction === "summarize" ? engine.store.summaries.latest() : null;
  return historyWindow(conversation(engine.store), policy.maxTokens, summary);
}

/**
 * The history of a turn's next request: compacts first when messages left the window that no
 * summary covers (announced as `history_compacted`), then reads the window.
 * @throws Error when the summarizing model fails; the turn fails with that message.
 */
export async function requestHistory(engine: RunWorld, execution: Execution): Promise<Message[]> {
  const policy = policyOf(engine, execution.model);
  if (policy.compaction === "summarize") {
    const spec = engine.agent.history?.summaryModel;
    const previous = engine.store.summaries.latest();
    // The window compaction found to fit is this request's window (same summary, same budget).
    let fits: Window | undefined;
    const summary = await compactIfNeeded(
      {
        source: conversation(engine.store),
        latest: () => previous,
        save: (s) => engine.store.summaries.save(s),
        model: async () => (spec ? resolveModelSpec(engine, spec, `agents/agents/${engine.meta.agentId}.ts (history.summaryModel)`) : execution.model),
        threadId: engine.meta.threadId,
        turnId: execution.flowId,
        signal: execution.signal,
        deadlines: modelDeadlinesOf(engine.workerEnv),
        ...(engine.meter ? { meter: engine.meter } : {}),
        fits: (window) => (fits = window),
      },
      policy.maxTokens,
    );
    if (fits) return previous ? [summaryMessage(previous), ...fits.messages] : fits.messages;
    if (summary) {
      engine.emit("history_compacted", { turnId: execution.flowId, throughId: summary.throughId, messages: summary.messages, tokens: summary.tokens, model: summary.model });
    }
  }
  return conversationWindow(engine, execution.model);
}

/** Keyset reads of the nested run of prompt call `callId` (index `messages_by_prompt_call`), above message id `floor`. */
export function promptRun(store: RunTables, callId: string, floor = 0): CompactionHost["source"] {
  return {
    newestFirst: (before, f, limit) => store.messages.ofPromptCall(callId, Math.max(f, floor), before, limit, "desc"),
    oldestFirst: (after, before, limit) => store.messages.ofPromptCall(callId, Math.max(after, floor), before, limit, "asc"),
  };
}

/**
 * The conversation of the nested run of prompt call `callId` that opened with `opening`: the
 * newest of its messages that fit the model's window, with the opening message (the run's task)
 * always first. Sibling runs at the same depth are never read.
 */
export function nestedWindow(engine: RunWorld, callId: string, opening: Message | undefined, model: Model): Message[] {
  if (!opening) return [];
  const window = selectWindow(promptRun(engine.store, callId, opening.id - 1), windowTokens(model));
  if (window.startId === NEWEST || window.startId === opening.id) return window.messages;
  return [opening, ...window.messages];
}
