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
 *   rewritten, identically on the call and its result.
 * Anthropic additionally gets system text only at the start (later system messages become user
 * text) and no empty assistant messages.
 * @module
 */
import type { Message, ToolCallRequest } from "../protocol.js";

/** The history rules a request must satisfy. */
export type Wire = "openai" | "anthropic" | "generic";

/** One entry of a provider history. */
export type HistoryEntry =
  | { role: "system"; text: string }
  | { role: "user"; text: string }
  | { role: "assistant"; text: string; calls: ToolCallRequest[] }
  | { role: "tool"; results: Array<{ callId: string; name: string; text: string }> };

const SAFE_ID = /^[A-Za-z0-9_-]{1,40}$/;

/** Text of the result of a call that has none recorded (its step never closed). */
export const MISSING_RESULT = "error: no result was recorded for this call";

/** Builds a provider history from stored messages (oldest first). */
export function providerHistory(messages: readonly Message[], wire: Wire): HistoryEntry[] {
  const results = new Map<string, Message>();
  for (const m of messages) if (m.role === "tool" && m.toolCallId !== undefined && !results.has(m.toolCallId)) results.set(m.toolCallId, m);
  const ids = idMapper(messages.flatMap((m) => (m.toolCalls ?? []).map((c) => c.id)));
  const answered = new Set<string>();
  const out: HistoryEntry[] = [];
  for (const m of messages) {
    if (m.role === "assistant") {
      const calls = (m.toolCalls ?? []).filter((c) => !answered.has(c.id));
      out.push({ role: "assistant", text: m.content, calls: calls.map((c) => ({ id: ids(c.id), name: c.name, arguments: c.arguments })) });
      if (calls.length === 0) continue;
      out.push({
        role: "tool",
        results: calls.map((c) => {
          answered.add(c.id);
          const result = results.get(c.id);
          return { callId: ids(c.id), name: c.name, text: result ? result.content : MISSING_RESULT };
        }),
      });
    } else if (m.role === "tool") {
      // Already answered right after its call (or a second result for one call).
      if (m.toolCallId !== undefined && answered.has(m.toolCallId)) continue;
      out.push({ role: "user", text: `[result of an earlier call${m.name ? ` to ${m.name}` : ""}]: ${m.content}` });
    } else {
      out.push({ role: m.role, text: m.content });
    }
  }
  return wire === "anthropic" ? forAnthropic(out) : out.filter((e) => !(e.role === "assistant" && e.text === "" && e.calls.length === 0));
}

/** Anthropic: system text only before the first other message; no empty assistant turns. */
function forAnthropic(entries: HistoryEntry[]): HistoryEntry[] {
  const out: HistoryEntry[] = [];
  let started = false;
  for (const e of entries) {
    if (e.role === "system") {
      out.push(started ? { role: "user", text: `[system] ${e.text}` } : e);
      continue;
    }
    if (e.role === "assistant" && e.text === "" && e.calls.length === 0) continue;
    started = true;
    out.push(e);
  }
  return out;
}

/** Maps ids a provider would refuse to safe ones, the same way every time within one history. */
function idMapper(existing: readonly string[]): (id: string) => string {
  const map = new Map<string, string>();
  const used = new Set(existing);
  return (id) => {
    if (SAFE_ID.test(id)) return id;
    let safe = map.get(id);
    if (safe) return safe;
    const base = `call_${fnv1a(id)}`;
    safe = base;
    for (let n = 2; used.has(safe); n++) safe = `${base}_${n}`;
    map.set(id, safe);
    used.add(safe);
    return safe;
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
