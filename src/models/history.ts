/**
 * Provider histories: turns a thread's stored messages into a sequence every provider accepts,
 * whatever happened in the thread (calls answered late, injected messages between a call and its
 * result, results whose call fell out of the window, ids a provider would refuse).
 *
 * Rules, for every wire format:
 * - each call of an assistant message is answered exactly once, right after that message, in call
 *   order (a call with no recorded result gets an error result saying so; a second result for the
 *   same id is dropped);
 * - a result whose call is not in the history becomes plain text, never an unanswered tool result;
 * - call ids a provider would refuse (longer than 40 characters or outside `[A-Za-z0-9_-]`) are
 *   rewritten, identically on the call and its result;
 * - a call the provider ran itself (`providerExecuted`) stays in its assistant message with the
 *   result the provider gave, under the provider's own id, and is never answered by weft.
 * Anthropic additionally gets system text only at the start (later system messages become user
 * text) and no empty assistant messages.
 * @module
 */
import type { Message, ToolCallRequest } from "../protocol.js";
import type { ContentPart } from "../content/parts.js";

/** The history rules a request must satisfy. */
export type Wire = "openai" | "anthropic" | "generic";

/** One entry of a provider history. */
export type HistoryEntry =
  | { role: "system"; text: string }
  | { role: "user"; text: string; /** A message posted as parts: sent as they are (`text` is their text). */ parts?: ContentPart[] }
  | {
      role: "assistant";
      text: string;
      calls: ToolCallRequest[];
      /** Calls the provider ran itself, with their results: they need no tool result from weft. */
      providerCalls?: Array<{ call: ToolCallRequest; result: NonNullable<ToolCallRequest["providerResult"]> }>;
    }
  | { role: "tool"; results: Array<{ callId: string; name: string; text: string; isError?: true }> };

const SAFE_ID = /^[A-Za-z0-9_-]{1,40}$/;

/** Text of the result of a call that has none recorded (its step never closed). */
export const MISSING_RESULT = "error: no result was recorded for this call";

/** Builds a provider history from stored messages (oldest first). */
export function providerHistory(messages: readonly Message[], wire: Wire): HistoryEntry[] {
  // Results by call id, in order: the n-th call made with an id takes the n-th result for it.
  const results = new Map<string, Message[]>();
  for (const m of messages) if (m.role === "tool" && m.toolCallId !== undefined) results.set(m.toolCallId, [...(results.get(m.toolCallId) ?? []), m]);
  const used = new Set<Message>();
  const ids = idMapper(messages.flatMap((m) => (m.toolCalls ?? []).map((c) => c.id)));
  const out: HistoryEntry[] = [];
  for (const m of messages) {
    if (m.role === "assistant") {
      const providerCalls = (m.toolCalls ?? []).flatMap((c) => (c.providerExecuted && c.providerResult ? [{ call: c, result: c.providerResult }] : []));
      const calls = (m.toolCalls ?? []).filter((c) => !c.providerExecuted).map((c) => {
        const result = results.get(c.id)?.find((r) => !used.has(r));
        if (result) used.add(result);
        // A call without its result is answered by an error: the provider learns it did not run.
        return { call: { id: ids(c.id), name: c.name, arguments: c.arguments }, text: result ? result.content : MISSING_RESULT, isError: result ? result.isError : true };
      });
      out.push({ role: "assistant", text: m.content, calls: calls.map((c) => c.call), ...(providerCalls.length > 0 ? { providerCalls } : {}) });
      if (calls.length > 0) out.push({ role: "tool", results: calls.map((c) => ({ callId: c.call.id, name: c.call.name, text: c.text, ...(c.isError ? { isError: true as const } : {}) })) });
    } else if (m.role === "tool") {
      // Answered right after its call; otherwise a result whose call is not in this history.
      if (used.has(m)) continue;
      out.push({ role: "user", text: `[result of an earlier call${m.name ? ` to ${m.name}` : ""}]: ${m.content}` });
    } else if (m.role === "user" && m.parts) {
      out.push({ role: "user", text: m.content, parts: m.parts });
    } else {
      out.push({ role: m.role, text: m.content });
    }
  }
  return wire === "anthropic" ? forAnthropic(out) : out.filter((e) => !isEmptyAssistant(e));
}

/** An assistant entry with nothing to send: no text, no calls, nothing the provider ran. */
function isEmptyAssistant(e: HistoryEntry): boolean {
  return e.role === "assistant" && e.text === "" && e.calls.length === 0 && (e.providerCalls ?? []).length === 0;
}

/** Opens an Anthropic conversation that would otherwise start with the assistant. */
export const CONVERSATION_START = "(conversation start)";

/**
 * Anthropic: system text only before the first other message; the first other message is a
 * user message; no empty assistant turns and no empty user text.
 */
function forAnthropic(entries: HistoryEntry[]): HistoryEntry[] {
  const out: HistoryEntry[] = [];
  let started = false;
  for (const e of entries) {
    if (e.role === "system") {
      out.push(started ? { role: "user", text: `[system] ${e.text}` } : e);
      continue;
    }
    if (isEmptyAssistant(e)) continue;
    if (!started && e.role !== "user") out.push({ role: "user", text: CONVERSATION_START });
    started = true;
    out.push(e.role === "user" && e.text === "" && !e.parts?.some((p) => p.type !== "text") ? { role: "user", text: "(empty message)" } : e);
  }
  return out;
}

/**
 * Gives each call an id the provider accepts and no other call of the history has: an id that is
 * safe and not yet given is kept; an unsafe or repeated one gets a fresh id derived from it. The
 * call and its result are rewritten together, since both take the id the call was given.
 */
function idMapper(existing: readonly string[]): (id: string) => string {
  const taken = new Set(existing);
  const given = new Set<string>();
  return (id) => {
    if (SAFE_ID.test(id) && !given.has(id)) {
      given.add(id);
      return id;
    }
    const base = `call_${fnv1a(id)}`;
    let fresh = base;
    for (let n = 2; taken.has(fresh) || given.has(fresh); n++) fresh = `${base}_${n}`;
    given.add(fresh);
    return fresh;
  };
}

/** A short stable hash (FNV-1a, 32 bits, hex) for rewritten ids. */
function fnv1a(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, "0");
}
