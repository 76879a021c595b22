/**
 * Bounded history: the messages one model request sends are the newest ones that fit a token
 * budget, read newest first with keyset queries (never the whole history, never an OFFSET), plus
 * the stored compaction summary of everything older at their head. A window never starts between
 * an assistant's tool call and its result.
 * @module
 */
import type { Message } from "../protocol.js";

/** Keyset reads of one conversation, as the window needs them. */
export interface HistorySource {
  /** Up to `limit` messages with `floor < id < before`, newest first. */
  newestFirst(before: number, floor: number, limit: number): Message[];
}

/** A stored summary of every message of the conversation up to `throughId`. */
export interface HistorySummary {
  throughId: number;
  content: string;
  /** Estimated tokens of the summary message. */
  tokens: number;
  /** Messages it covers, in all. */
  messages: number;
  /** The model that wrote it (`scripted` for the extractive summary). */
  model: string;
  createdAt: number;
}

/** Rows read per keyset step. */
const CHUNK = 64;
/** The most rows read back past the budget to find the call of a result at the window's edge. */
const MAX_REPAIR_ROWS = 1000;
/** Ids are positive: reading "before" this starts at the newest message. */
export const NEWEST = Number.MAX_SAFE_INTEGER;

const NON_ASCII = /[^\x00-\x7f]/;

/**
 * Estimated tokens of a text, in quarter tokens, by script: ASCII (English, JSON) about 4
 * characters a token, the usual rule of thumb for BPE tokenizers; accented Latin and Cyrillic 2;
 * Greek, Hebrew, Arabic and the rest below U+0800 about 1.3; everything from U+0800 up (Indic
 * scripts, Thai, CJK, kana, Hangul) a token each, and a character outside the BMP (an emoji) two.
 * Measured on the same sentence in 12 languages against cl100k_base and o200k_base, it is 0.68 to
 * 1.15 times the cl100k count and never under the o200k count: on the high side where vocabularies
 * differ, so a window that fits the estimate fits the model. Four characters a token for every
 * script counted Chinese at a quarter of its tokens.
 */
export function quarterTokens(text: string): number {
  if (!NON_ASCII.test(text)) return text.length;
  let quarters = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    quarters += c < 0x80 ? 1 : c < 0x370 ? 2 : c < 0x400 ? 3 : c < 0x530 ? 2 : c < 0x800 ? 3 : 4;
  }
  return quarters;
}

/**
 * Estimated tokens of a message: its text, name and tool calls by script (four ASCII characters a
 * token, a CJK character a token; see `quarterTokens`), plus a few tokens of per-message framing.
 */
export function estimateTokens(message: Pick<Message, "content" | "toolCalls" | "name">): number {
  // A stored message kept in memory is read again by every step; it is frozen, so its estimate stands.
  if (Object.isFrozen(message)) {
    const known = estimates.get(message);
    if (known !== undefined) return known;
    const tokens = estimateOnce(message);
    estimates.set(message, tokens);
    return tokens;
  }
  return estimateOnce(message);
}

const estimates = new WeakMap<object, number>();

function estimateOnce(message: Pick<Message, "content" | "toolCalls" | "name">): number {
  let quarters = quarterTokens(message.content) + quarterTokens(message.name ?? "");
  for (const call of message.toolCalls ?? []) quarters += quarterTokens(call.name) + quarterTokens(call.arguments) + call.id.length + 8;
  return Math.ceil(quarters / 4) + 4;
}

/** A selected window: its messages oldest first, their estimated tokens, and where it starts. */
export interface Window {
  messages: Message[];
  tokens: number;
  /** Id of the oldest message in the window ({@link NEWEST} when the window is empty). */
  startId: number;
}

/**
 * The newest messages above `floor` whose estimated tokens fit `budget` (always at least the
 * newest one, so a request never goes out empty), read in keyset steps. A window that would
 * begin with a tool result whose call lies outside it starts after that result instead; when
 * that would leave nothing, it reaches back to include the call.
 */
export function selectWindow(source: HistorySource, budget: number, floor = 0): Window {
  const picked: Message[] = [];
  let tokens = 0;
  let before = NEWEST;
  fill: for (;;) {
    const rows = source.newestFirst(before, floor, CHUNK);
    for (const m of rows) {
      const t = estimateTokens(m);
      if (picked.length > 0 && tokens + t > budget) break fill;
      picked.push(m);
      tokens += t;
    }
    if (rows.length < CHUNK) break;
    before = rows.at(-1)!.id;
  }
  picked.reverse();
  const cut = lastOrphan(picked);
  if (cut < 0) return windowOf(picked, tokens);
  if (cut < picked.length - 1) {
    const kept = picked.slice(cut + 1);
    return windowOf(kept, kept.reduce((n, m) => n + estimateTokens(m), 0));
  }
  // Only results whose calls are older: reach back for those calls rather than send nothing.
  const back: Message[] = [];
  const missing = new Set(picked.filter((m) => m.role === "tool" && m.toolCallId !== undefined).map((m) => m.toolCallId!));
  for (const m of picked) for (const c of m.toolCalls ?? []) missing.delete(c.id);
  before = picked[0]!.id;
  while (missing.size > 0 && back.length < MAX_REPAIR_ROWS) {
    const rows = source.newestFirst(before, floor, CHUNK);
    for (const m of rows) {
      back.push(m);
      for (const c of m.toolCalls ?? []) missing.delete(c.id);
      if (missing.size === 0) break;
    }
    if (rows.length < CHUNK) break;
    before = rows.at(-1)!.id;
  }
  const all = [...back.reverse(), ...picked];
  const start = missing.size === 0 ? 0 : lastOrphan(all) + 1;
  const kept = all.slice(start);
  return windowOf(kept, kept.reduce((n, m) => n + estimateTokens(m), 0));
}

function windowOf(messages: Message[], tokens: number): Window {
  return { messages, tokens, startId: messages[0]?.id ?? NEWEST };
}

/** Index of the last tool result (oldest first) whose call is not earlier in `messages`; -1 if none. */
function lastOrphan(messages: readonly Message[]): number {
  const calls = new Set<string>();
  let last = -1;
  messages.forEach((m, i) => {
    for (const c of m.toolCalls ?? []) calls.add(c.id);
    if (m.role === "tool" && m.toolCallId !== undefined && !calls.has(m.toolCallId)) last = i;
  });
  return last;
}

/** Opening words of a summary at the head of a request. */
export const SUMMARY_HEADING = "Summary of the earlier conversation";

/**
 * The summary as the first message of a request: a silent system message with id 0 (it is not a
 * stored message) whose metadata says what it covers.
 */
export function summaryMessage(summary: HistorySummary): Message {
  return {
    id: 0,
    role: "system",
    content: `${SUMMARY_HEADING} (${summary.messages} older messages, compacted):\n${summary.content}`,
    silent: true,
    createdAt: summary.createdAt,
    metadata: { summary: { throughId: summary.throughId, messages: summary.messages, model: summary.model } },
  };
}

/**
 * The history of one request: the summary (when there is one) and the newest messages after it
 * that fit what the budget leaves.
 */
export function historyWindow(source: HistorySource, budget: number, summary: HistorySummary | null): Message[] {
  if (!summary) return selectWindow(source, budget).messages;
  const window = selectWindow(source, Math.max(1, budget - summary.tokens), summary.throughId);
  return [summaryMessage(summary), ...window.messages];
}
