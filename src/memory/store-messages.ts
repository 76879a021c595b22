/**
 * The message table of the memory store: ids in append order, the same page rule and counters
 * as the SQLite table.
 * @module
 */
import type { Message, MessageRole } from "../protocol.js";
import type { AnswerRange, MessageTable, MetaTable, NewMessage } from "../ports/store.js";
import type { GetMessagesOptions, MessagesResult } from "../tools/thread-state.js";
import { messagePage, promptCallOf } from "../thread/store/messages.js";
import type { MemoryData } from "./data.js";
import { countersOf } from "../run/message-counters.js";
import { pageWithin } from "../limits.js";

const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** Messages in memory. */
export class MemoryMessages implements MessageTable {
  /**
   * @param data the store's tables (read each time: `atomically` may replace them).
   * @param meta where the message counters are kept, as the SQLite table keeps them.
   */
  constructor(
    private readonly data: () => MemoryData,
    private readonly meta: MetaTable,
  ) {}

  private get rows(): MemoryData["messages"] {
    return this.data().messages;
  }

  append(input: NewMessage, now = Date.now()): Message {
    const silent = input.silent === true;
    const depth = input.depth ?? 0;
    const message: Message = { id: (this.rows.at(-1)?.message.id ?? 0) + 1, role: input.role as MessageRole, content: input.content, silent, createdAt: now };
    if (input.toolCalls) message.toolCalls = clone(input.toolCalls);
    if (input.toolCallId !== undefined) message.toolCallId = input.toolCallId;
    if (input.name !== undefined) message.name = input.name;
    if (input.role === "tool" && input.isError === true) message.isError = true;
    if (input.metadata) message.metadata = clone(input.metadata);
    if (input.parts) message.parts = clone(input.parts);
    if (depth > 0) message.depth = depth;
    if (input.side === "a" || input.side === "b") message.side = input.side;
    this.rows.push({ message, promptCall: promptCallOf(input) });
    for (const name of countersOf(silent, depth)) this.meta.bump(name, 1);
    return clone(message);
  }

  list(options: GetMessagesOptions = {}): MessagesResult {
    const { limit, offset, order, maxDepth, before, after } = messagePage(options);
    const includeSilent = options.includeSilent === true;
    const filtered = this.rows.map((r) => r.message).filter((m) => (includeSilent || !m.silent) && (maxDepth === undefined || (m.depth ?? 0) <= maxDepth));
    const total = filtered.length;
    const bounded = filtered.filter((m) => (before === undefined || m.id < before) && (after === undefined || m.id > after));
    if (order === "desc") bounded.reverse();
    const page = pageWithin(bounded.slice(offset), limit, clone);
    const hasMore = page.more || (before === undefined && after === undefined && offset + page.items.length < total);
    return { messages: page.items, total, hasMore };
  }

  private at(depth: number, low: number, high: number): Message[] {
    return this.rows.map((r) => r.message).filter((m) => (m.depth ?? 0) === depth && m.id > low && m.id < high);
  }

  newestFirst(depth: number, before: number, floor: number, limit: number): Message[] {
    return this.at(depth, floor, before).reverse().slice(0, limit).map(clone);
  }

  oldestFirst(depth: number, after: number, before: number, limit: number): Message[] {
    return this.at(depth, after, before).slice(0, limit).map(clone);
  }

  ofPromptCall(callId: string, after: number, before: number, limit: number, order: "asc" | "desc"): Message[] {
    const rows = this.rows.filter((r) => r.promptCall === callId && r.message.id > after && r.message.id < before).map((r) => r.message);
    if (order === "desc") rows.reverse();
    return rows.slice(0, limit).map(clone);
  }

  promptCallSteps(callId: string): number {
    return this.rows.filter((r) => r.promptCall === callId && r.message.role === "assistant" && r.message.metadata?.queued === undefined).length;
  }

  lastAnswer(within?: AnswerRange): string {
    for (let i = this.rows.length - 1; i >= 0; i--) {
      const m = this.rows[i]!.message;
      if (within && (m.id <= within.after || (within.until !== null && m.id > within.until))) continue;
      if ((m.depth ?? 0) === 0 && m.role === "assistant" && m.content !== "" && (m.side === undefined || m.side === "a")) return m.content;
    }
    return "";
  }

  count(): number {
    return this.rows.at(-1)?.message.id ?? 0;
  }
}
