/**
 * The thread's messages. `getMessages` walks an index from one end (or from a `before`/`after`
 * cursor), so a page costs O(offset + limit) whatever the history's length, and totals come from
 * counters (src/run/message-counters.ts), not COUNT(*). Model requests read their window with
 * keyset queries over `messages_by_depth (depth, id)`: newest first from a bound, never an
 * OFFSET, never the whole table.
 * @module
 */
import type { Message, MessageRole, ToolCallRequest } from "../../protocol.js";
import { PROMPT_CALL_KEY } from "../../run/prompt.js";
import type { GetMessagesOptions, MessagesResult } from "../../tools/thread-state.js";
import type { AnswerRange, MessageTable, NewMessage } from "../../ports/store.js";
import { MessageTail } from "./message-tail.js";
import type { MetaStore } from "./meta.js";

/** The content-size rule lives with the messages a run appends (src/run/messages.ts). */
export { MAX_CONTENT_BYTES, MAX_DEPTH, checkContentSize, messagePage } from "../../run/messages.js";
import { messagePage } from "../../run/messages.js";
import { countersOf, messageTotal } from "../../run/message-counters.js";
import { pageWithin } from "../../limits.js";

/** A message before it is stored (defined with the store port). */
export type { NewMessage } from "../../ports/store.js";

interface MessageRow extends Record<string, SqlStorageValue> {
  id: number;
  role: string;
  content: string;
  parts: string | null;
  tool_calls: string | null;
  tool_call_id: string | null;
  name: string | null;
  silent: number;
  metadata: string | null;
  depth: number;
  side: string | null;
  is_error: number;
  created_at: number;
}

function toMessage(row: MessageRow): Message {
  const message: Message = {
    id: row.id,
    role: row.role as MessageRole,
    content: row.content,
    silent: row.silent === 1,
    createdAt: row.created_at,
  };
  if (row.parts !== null) message.parts = JSON.parse(row.parts) as Message["parts"];
  if (row.tool_calls !== null) message.toolCalls = JSON.parse(row.tool_calls) as ToolCallRequest[];
  if (row.tool_call_id !== null) message.toolCallId = row.tool_call_id;
  if (row.name !== null) message.name = row.name;
  if (row.is_error === 1) message.isError = true;
  if (row.metadata !== null) message.metadata = JSON.parse(row.metadata) as Record<string, unknown>;
  if (row.depth > 0) message.depth = row.depth;
  if (row.side === "a" || row.side === "b") message.side = row.side;
  return message;
}

/** The prompt call a nested message belongs to (`metadata.promptCall`), kept in its own indexed column; null for none. */
export function promptCallOf(input: NewMessage): string | null {
  const callId = input.metadata?.[PROMPT_CALL_KEY];
  return (input.depth ?? 0) > 0 && typeof callId === "string" ? callId : null;
}

/** Appends and pages through messages. */
export class MessageStore implements MessageTable {
  /** The newest messages per depth, so a model step does not read again what the step before read. */
  private readonly tail = new MessageTail();

  constructor(
    private readonly sql: SqlStorage,
    private readonly meta: MetaStore,
  ) {}

  /** Stores a message and bumps the counters; call inside a transaction with related writes. */
  append(input: NewMessage, now = Date.now()): Message {
    const silent = input.silent === true;
    const depth = input.depth ?? 0;
    const row = this.sql
      .exec<MessageRow>(
        `INSERT INTO messages (role, content, parts, tool_calls, tool_call_id, name, silent, metadata, depth, side, prompt_call, is_error, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
        input.role,
        input.content,
        input.parts ? JSON.stringify(input.parts) : null,
        input.toolCalls ? JSON.stringify(input.toolCalls) : null,
        input.toolCallId ?? null,
        input.name ?? null,
        silent ? 1 : 0,
        input.metadata ? JSON.stringify(input.metadata) : null,
        depth,
        input.side ?? null,
        promptCallOf(input),
        input.role === "tool" && input.isError === true ? 1 : 0,
        now,
      )
      .one();
    const counters = countersOf(silent, depth);
    if (counters.length > 0) this.meta.bumpAll(counters, 1);
    const message = toMessage(row);
    this.tail.appended(message);
    return message;
  }

  /**
   * One page of messages (the Standard Agents tools API's `getMessages`). `before`/`after` are
   * message ids that bound the page (exclusive); `order` says which end it starts from, so
   * `{ before: oldestSeen, order: "desc" }` pages back and `{ after: newestSeen }` pages forward,
   * each page costing what the first one costs. `total` counts every message under the filters
   * (the cursors aside); `hasMore` says whether more follow this page in its direction.
   * @throws WeftError `invalid_request` for a page size outside the list's rule (`PAGE_SIZES` in src/limits.ts), a negative or non-integer offset/cursor, or a bad order.
   */
  list(options: GetMessagesOptions = {}): MessagesResult {
    const { limit, offset, order, maxDepth, before, after } = messagePage(options);
    const includeSilent = options.includeSilent === true;
    const total = messageTotal(this.count(), (name) => this.meta.counter(name), includeSilent, maxDepth);
    const direction = order === "asc" ? "ASC" : "DESC";
    const filters = [
      ...(includeSilent ? [] : ["silent = 0"]),
      ...(maxDepth !== undefined ? [`depth <= ${maxDepth}`] : []),
      ...(before !== undefined ? [`id < ${before}`] : []),
      ...(after !== undefined ? [`id > ${after}`] : []),
    ];
    const where = filters.length > 0 ? `WHERE ${filters.join(" AND ")}` : "";
    const cursor = before !== undefined || after !== undefined;
    // With a cursor the remaining count is unknown: one extra row says whether more follow. A page is cut at its bytes as read.
    const rows = this.sql.exec<MessageRow>(`SELECT * FROM messages ${where} ORDER BY id ${direction} LIMIT ? OFFSET ?`, cursor ? limit + 1 : limit, offset);
    const page = pageWithin(rows, limit, toMessage);
    return { messages: page.items, total, hasMore: page.more || (!cursor && offset + page.items.length < total) };
  }

  /**
   * Up to `limit` messages at exactly `depth` with `floor < id < before`, newest first: one
   * keyset step of a history window (index `messages_by_depth`: a conversation's window never reads
   * the nested runs between its messages, however many).
   */
  newestFirst(depth: number, before: number, floor: number, limit: number): Message[] {
    return this.tail.newestFirst(depth, before, floor, limit, (below, above, count) =>
      this.sql
        .exec<MessageRow>("SELECT * FROM messages WHERE depth = ? AND id < ? AND id > ? ORDER BY id DESC LIMIT ?", depth, below, above, count)
        .toArray()
        .map(toMessage),
    );
  }

  /** Drops what it keeps in memory about its rows (after a rollback or `deleteAll`). */
  forget(): void {
    this.tail.forget();
    this.anyHistoryCalls = undefined;
  }

  /** Up to `limit` messages at exactly `depth` with `after < id < before`, oldest first (compaction reads). */
  oldestFirst(depth: number, after: number, before: number, limit: number): Message[] {
    return this.sql
      .exec<MessageRow>("SELECT * FROM messages WHERE depth = ? AND id > ? AND id < ? ORDER BY id ASC LIMIT ?", depth, after, before, limit)
      .toArray()
      .map(toMessage);
  }

  /**
   * Up to `limit` messages of the nested run of prompt call `callId` with `after < id < before`,
   * oldest (`asc`) or newest (`desc`) first: an index seek (`messages_by_prompt_call`), whatever
   * else sits at the run's depth.
   */
  ofPromptCall(callId: string, after: number, before: number, limit: number, order: "asc" | "desc"): Message[] {
    return this.sql
      .exec<MessageRow>(
        `SELECT * FROM messages WHERE prompt_call = ? AND id > ? AND id < ? ORDER BY id ${order === "asc" ? "ASC" : "DESC"} LIMIT ?`,
        callId,
        after,
        before,
        limit,
      )
      .toArray()
      .map(toMessage);
  }

  /** How many model steps the nested run of prompt call `callId` took (its assistant messages, queued calls aside). */
  promptCallSteps(callId: string): number {
    return this.sql
      .exec<{ n: number }>(
        "SELECT COUNT(*) AS n FROM messages WHERE prompt_call = ? AND role = 'assistant' AND (metadata IS NULL OR json_extract(metadata, '$.queued') IS NULL)",
        callId,
      )
      .one().n;
  }

  /** The latest non-empty answer of the thread's own conversation (side a's, with two sides), within ids `within` when given. */
  lastAnswer(within?: AnswerRange): string {
    const row = this.sql
      .exec<{ content: string }>(
        "SELECT content FROM messages WHERE id > ? AND id <= ? AND depth = 0 AND role = 'assistant' AND content != '' AND (side IS NULL OR side = 'a') ORDER BY id DESC LIMIT 1",
        within?.after ?? 0,
        within?.until ?? Number.MAX_SAFE_INTEGER,
      )
      .toArray()[0];
    return row?.content ?? "";
  }

  /** No statement deletes a message (`deleteAll` drops the database): ids are 1..n, the largest is the count. */
  count(): number {
    return this.sql.exec<{ n: number }>("SELECT COALESCE(MAX(id), 0) AS n FROM messages").one().n;
  }

  /**
   * Keeps the call ids of a history the thread was created with: those calls ran before the
   * thread, so no call record holds their ids. Call inside the transaction that stores the history.
   */
  reserveCallIds(ids: Iterable<string>): void {
    for (const id of ids) {
      this.sql.exec("INSERT OR IGNORE INTO history_calls (id) VALUES (?)", id);
      this.anyHistoryCalls = true;
    }
  }

  /** Whether `id` is a call id of the thread's history (see {@link reserveCallIds}). */
  isHistoryCall(id: string): boolean {
    // Asked for every call a model step makes; most threads have no history, and learn so once.
    this.anyHistoryCalls ??= this.sql.exec("SELECT 1 FROM history_calls LIMIT 1").toArray().length > 0;
    return this.anyHistoryCalls && this.sql.exec("SELECT 1 FROM history_calls WHERE id = ?", id).toArray().length > 0;
  }

  /** Whether the history holds any call, once known (a thread's history is written only when it is created). */
  private anyHistoryCalls: boolean | undefined = undefined;
}
