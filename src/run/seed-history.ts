/**
 * A thread created with an earlier conversation (`POST /threads` `history`): the messages are
 * checked as a whole before anything is stored, so the thread's model sees a conversation every
 * provider accepts, and no call in it is left without its result.
 * @module
 */
import { WeftError } from "../errors.js";
import { MAX_STEP_BYTES, checkStoredBytes } from "../limits.js";
import type { MessageRole, ToolCallRequest } from "../protocol.js";
import type { NewTurnMessage } from "./messages.js";

/** Most messages one `history` may hold (the largest page of `GET /threads/:id/messages`). */
export const MAX_HISTORY_MESSAGES = 1000;

/** Bytes of JSON one history message's text may take, as for any stored message. */
const MAX_TEXT_BYTES = 1024 * 1024;

/** One message of a `history`, as a client sends it (the shape of a stored message, without ids or times). */
export interface HistoryMessage {
  role: MessageRole;
  content: string;
  /** Assistant messages: the calls the model asked for; each must be answered by a `tool` message. */
  toolCalls?: Array<Pick<ToolCallRequest, "id" | "name" | "arguments">>;
  /** Tool messages: the call of the assistant message just before that this result answers. */
  toolCallId?: string;
  /** Tool messages: the tool's name (the call's, when left out). */
  name?: string;
  /** Tool messages: the result is an error (sent as one to providers that mark errors). */
  isError?: boolean;
}

const bad = (message: string, path: (string | number)[]) => new WeftError("invalid_request", `${path.join(".")}: ${message}`, { path });

/**
 * Checks the messages of a history as they will be stored (their secrets replaced, which can
 * lengthen them: a short secret becomes a longer marker), so no message row, nor the event that
 * announces it, is over Cloudflare's 2 MB.
 * @throws WeftError `payload_too_large` naming `history.<i>` of the first message over {@link MAX_STEP_BYTES};
 * `invalid_request` naming `history.<i>.toolCalls.<j>.id` when two call ids are one once a secret in them is replaced.
 */
export function checkStoredHistory(messages: readonly NewTurnMessage[]): void {
  const ids = new Set<string>();
  messages.forEach((m, i) => {
    checkStoredBytes(JSON.stringify(m), ["history", i], MAX_STEP_BYTES);
    // Two ids that differ only in a secret are one id once it is replaced.
    (m.toolCalls ?? []).forEach((c, j) => {
      if (ids.has(c.id)) throw bad("call id is used twice once its secret is replaced", ["history", i, "toolCalls", j, "id"]);
      ids.add(c.id);
    });
  });
}

/**
 * Checks an earlier conversation and returns the messages to store, oldest first, at depth 0.
 * The rules are the ones every provider holds a conversation to: a `tool` message answers a call
 * of the assistant message before it (its results come right after it, one per call, in any
 * order), every call is answered, and call ids are unique.
 * @throws WeftError `invalid_request` naming the path (`history.<i>.<field>`) of the first
 * message that breaks a rule; `payload_too_large` for a message too large to store in one row.
 */
export function checkHistory(history: readonly HistoryMessage[]): NewTurnMessage[] {
  if (history.length > MAX_HISTORY_MESSAGES) throw bad(`${history.length} messages, over the limit of ${MAX_HISTORY_MESSAGES}`, ["history"]);
  const ids = new Set<string>();
  /** Calls of the last assistant message still waiting for their result, by id. */
  let open = new Map<string, string>();
  const out: NewTurnMessage[] = [];
  history.forEach((m, i) => {
    const at = ["history", i];
    if (m.role !== "tool" && m.isError !== undefined) throw bad("only tool messages carry isError", [...at, "isError"]);
    if (m.role !== "tool" && open.size > 0) throw bad(`call ${[...open.keys()][0]} has no result: the tool messages of an assistant message's calls come right after it`, at);
    if (m.role === "assistant") {
      checkStoredBytes(JSON.stringify({ content: m.content, toolCalls: m.toolCalls ?? [] }), at, MAX_STEP_BYTES);
      const calls = m.toolCalls ?? [];
      calls.forEach((c, j) => {
        if (ids.has(c.id)) throw bad(`call id ${JSON.stringify(c.id)} is used twice`, [...at, "toolCalls", j, "id"]);
        ids.add(c.id);
      });
      open = new Map(calls.map((c) => [c.id, c.name]));
      out.push({ role: "assistant", content: m.content, ...(calls.length > 0 ? { toolCalls: calls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })) } : {}) });
      return;
    }
    checkStoredBytes(JSON.stringify(m.content), [...at, "content"], MAX_TEXT_BYTES);
    if (m.toolCalls !== undefined) throw bad("only assistant messages carry toolCalls", [...at, "toolCalls"]);
    if (m.role !== "tool") {
      if (m.toolCallId !== undefined) throw bad("only tool messages carry toolCallId", [...at, "toolCallId"]);
      out.push({ role: m.role, content: m.content });
      return;
    }
    const name = m.toolCallId === undefined ? undefined : open.get(m.toolCallId);
    if (name === undefined) throw bad(`${JSON.stringify(m.toolCallId ?? null)} names no unanswered call of the assistant message before it`, [...at, "toolCallId"]);
    if (m.name !== undefined && m.name !== name) throw bad(`call ${m.toolCallId} is a call of ${JSON.stringify(name)}, not ${JSON.stringify(m.name)}`, [...at, "name"]);
    open.delete(m.toolCallId!);
    const result: NewTurnMessage = { role: "tool", content: m.content, toolCallId: m.toolCallId!, name, ...(m.isError === true ? { isError: true } : {}) };
    // A result repeats its call's id and name beside its content: the row holds all three.
    checkStoredBytes(JSON.stringify(result), at, MAX_STEP_BYTES);
    out.push(result);
  });
  if (open.size > 0) throw bad(`call ${[...open.keys()][0]} has no result: every call in a history needs its tool message`, ["history", history.length - 1]);
  return out;
}
