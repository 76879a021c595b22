/**
 * The thread's messages. `getMessages` walks an index from one end, so a page costs
 * O(offset + limit) whatever the history's length, and totals come from counters, not COUNT(*).
 * @module
 */
import { byteLength, fitsBytes } from "../../bytes.js";
import { WeftError } from "../../errors.js";
import type { Message, MessageRole, ToolCallRequest } from "../../protocol.js";
import type { NewTurnMessage } from "../../run/messages.js";
import type { GetMessagesOptions, MessagesResult } from "../../tools/thread-state.js";
import type { MetaStore } from "./meta.js";

/** Largest page `getMessages` returns. */
export const MAX_PAGE = 1000;

/** Largest message content in UTF-8 bytes; SQLite rows stop at 2 MB, so content stays well under. */
export const MAX_CONTENT_BYTES = 1024 * 1024;

/**
 * Checks content a client or tool supplies.
 * @throws WeftError `payload_too_large` naming `path` when over {@link MAX_CONTENT_BYTES}.
 */
export function checkContentSize(content: string, path: (string | number)[]): void {
  if (fitsBytes(content, MAX_CONTENT_BYTES)) return;
  const bytes = byteLength(content);
  throw new WeftError("payload_too_large", `${path.join(".")}: ${bytes} bytes, over the ${MAX_CONTENT_BYTES}-byte limit of a message`, { path });
}

/** A message before it is stored. */
export type NewMessage = NewTurnMessage;

interface MessageRow extends Record<string, SqlStorageValue> {
  id: number;
  role: string;
  content: string;
  tool_calls: string | null;
  tool_call_id: string | null;
  name: string | null;
  silent: number;
  metadata: string | null;
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
  if (row.tool_calls !== null) message.toolCalls = JSON.parse(row.tool_calls) as ToolCallRequest[];
  if (row.tool_call_id !== null) message.toolCallId = row.tool_call_id;
  if (row.name !== null) message.name = row.name;
  if (row.metadata !== null) message.metadata = JSON.parse(row.metadata) as Record<string, unknown>;
  return message;
}

/** Appends and pages through messages. */
export class MessageStore {
  constructor(
    private readonly sql: SqlStorage,
    private readonly meta: MetaStore,
  ) {}

  /** Stores a message and bumps the counters; call inside a transaction with related writes. */
  append(input: NewMessage, now = Date.now()): Message {
    const silent = input.silent === true;
    const row = this.sql
      .exec<MessageRow>(
        `INSERT INTO messages (role, content, tool_calls, tool_call_id, name, silent, metadata, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
        input.role,
        input.content,
        input.toolCalls ? JSON.stringify(input.toolCalls) : null,
        input.toolCallId ?? null,
        input.name ?? null,
        silent ? 1 : 0,
        input.metadata ? JSON.stringify(input.metadata) : null,
        now,
      )
      .one();
    this.meta.bump("messages", 1);
    if (!silent) this.meta.bump("visible_messages", 1);
    return toMessage(row);
  }

  /**
   * One page of messages (the Standard Agents tools API's `getMessages`).
   * @throws WeftError `invalid_request` for a negative or non-integer limit/offset or a bad order.
   */
  list(options: GetMessagesOptions = {}): MessagesResult {
    const limit = options.limit ?? 100;
    const offset = options.offset ?? 0;
    const order = options.order ?? "asc";
    if (!Number.isInteger(limit) || limit < 0 || limit > MAX_PAGE) {
      throw new WeftError("invalid_request", `limit: expected an integer from 0 to ${MAX_PAGE}, got ${limit}`, {
        path: ["limit"],
      });
    }
    if (!Number.isInteger(offset) || offset < 0) {
      throw new WeftError("invalid_request", `offset: expected a non-negative integer, got ${offset}`, { path: ["offset"] });
    }
    if (order !== "asc" && order !== "desc") {
      throw new WeftError("invalid_request", `order: expected "asc" or "desc", got ${String(order)}`, { path: ["order"] });
    }
    const includeSilent = options.includeSilent === true;
    const total = this.meta.counter(includeSilent ? "messages" : "visible_messages");
    const direction = order === "asc" ? "ASC" : "DESC";
    const where = includeSilent ? "" : "WHERE silent = 0";
    const rows = this.sql
      .exec<MessageRow>(`SELECT * FROM messages ${where} ORDER BY id ${direction} LIMIT ? OFFSET ?`, limit, offset)
      .toArray();
    return { messages: rows.map(toMessage), total, hasMore: offset + rows.length < total };
  }

  /** Every message in order, for model requests. */
  all(): Message[] {
    return this.sql.exec<MessageRow>("SELECT * FROM messages ORDER BY id ASC").toArray().map(toMessage);
  }

  count(): number {
    return this.meta.counter("messages");
  }
}
