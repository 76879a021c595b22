/**
 * Message shapes the turn loop appends, and the size and depth rules they are stored under.
 * @module
 */
import { fitsJsonBytes, jsonTextBytes } from "../bytes.js";
import { WeftError } from "../errors.js";
import { pageOffset, pageSize, wholeNumberOption } from "../limits.js";
import type { ContentPart } from "../content/parts.js";
import type { MessageRole, ToolCallRequest } from "../protocol.js";
import type { GetMessagesOptions } from "../tools/thread-state.js";
import type { CallOutcome } from "../calls/call.js";
import { errorMark, resultText } from "../calls/result.js";

/** A message the turn appends to the thread's history. */
export interface NewTurnMessage {
  role: MessageRole;
  content: string;
  /** A user message's parts, when it was posted as parts (`content` is their text). */
  parts?: ContentPart[];
  toolCalls?: ToolCallRequest[];
  toolCallId?: string;
  name?: string;
  /** Tool messages: the result is an error (see `Message.isError`). */
  isError?: boolean;
  silent?: boolean;
  metadata?: Record<string, unknown>;
  /** Nesting depth: 0 for the thread's own conversation, 1+ inside prompts called as tools. */
  depth?: number;
  /** The side that wrote it, in a two-sided agent's conversation. */
  side?: "a" | "b";
}

/** Largest message content in UTF-8 bytes; SQLite rows stop at 2 MB, so content stays well under. */
export const MAX_CONTENT_BYTES = 1024 * 1024;

/**
 * Checks content a client or tool supplies, as it will be stored: inside JSON (the message's
 * events), escapes counted, so no row it becomes is over Cloudflare's 2 MB.
 * @throws WeftError `payload_too_large` naming `path` and the limit when over `max` (default {@link MAX_CONTENT_BYTES}).
 */
export function checkContentSize(content: string, path: (string | number)[], max = MAX_CONTENT_BYTES, setting = ""): void {
  if (fitsJsonBytes(content, max)) return;
  const bytes = jsonTextBytes(content);
  throw new WeftError("payload_too_large", `${path.join(".")}: ${bytes} bytes as stored (JSON), over the ${max}-byte limit of a message${setting ? ` (${setting})` : ""}`, {
    path,
    limit: max,
  });
}

/** Deepest nesting of prompt calls; a deeper call is refused, so depth counters stay bounded. */
export const MAX_DEPTH = 8;

/** A `getMessages` page's options, checked, with their defaults. */
export interface MessagePage {
  /** Page size, within the list's rule. */
  limit: number;
  /** Messages skipped from the page's starting end. */
  offset: number;
  /** Which end the page starts from. */
  order: "asc" | "desc";
  /** Deepest nesting included; all when absent. */
  maxDepth: number | undefined;
  /** Only ids below this one. */
  before: number | undefined;
  /** Only ids above this one. */
  after: number | undefined;
}

/**
 * Checks a `getMessages` page's options (one rule for every message table).
 * @throws WeftError `invalid_request` for a page size outside the list's rule (`PAGE_SIZES` in src/limits.ts), a negative or non-integer offset/cursor/depth, or a bad order, naming the option.
 */
export function messagePage(options: GetMessagesOptions): MessagePage {
  const limit = pageSize("messages", options.limit);
  const offset = pageOffset(options.offset);
  const order = options.order ?? "asc";
  if (order !== "asc" && order !== "desc") {
    throw new WeftError("invalid_request", `order: expected "asc" or "desc", got ${String(order)}`, { path: ["order"] });
  }
  const maxDepth = wholeNumberOption("maxDepth", options.maxDepth);
  const before = wholeNumberOption("before", options.before);
  const after = wholeNumberOption("after", options.after);
  return { limit, offset, order, maxDepth, before, after };
}

/**
 * A queued call's history entries, after its step's results: its call (marked `queued`) and its
 * result, whose text is `content` (the result's own by default).
 */
export function queuedCallEntries(q: CallOutcome, content = resultText(q.result)): NewTurnMessage[] {
  return [
    { role: "assistant", content: "", toolCalls: [{ id: q.callId, name: q.toolName, arguments: q.argsText }], metadata: { queued: true } },
    { role: "tool", content, toolCallId: q.callId, name: q.toolName, ...errorMark(q.result) },
  ];
}
