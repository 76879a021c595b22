/**
 * Human-readable lines for the CLI: one line per event frame, per message, per tool.
 * `--json` output never passes through here.
 * @module
 */
import type { EventFrame, Message, ToolListing } from "weft/client";

// DEL and the C1 controls, which a terminal reads as commands, the line and paragraph separators,
// which it may break a line at, and the bidirectional marks and overrides, which reorder what it
// shows (Trojan Source, CVE-2021-42574): what JSON leaves as it is. As src/log.ts for the Worker's console.
const BEYOND_JSON = "\\u007f-\\u009f\\u061c\\u200e\\u200f\\u2028-\\u202e\\u2066-\\u2069";
const UNESCAPED_IN_JSON = new RegExp(`[${BEYOND_JSON}]`, "g");
// With the C0 controls but tab and newline: everything a line for people must not carry raw.
const TERMINAL_CONTROLS = new RegExp(`[\\u0000-\\u0008\\u000b-\\u001f${BEYOND_JSON}]`, "g");

/**
 * `line` as a terminal shows it, not obeys it: each control character written out as `\xNN`.
 * Text a model or a tool wrote reaches people's terminals through the CLI's lines, and an escape
 * sequence in it could rewrite what they read (erase a "waits for approval" line, fake a finished
 * turn) or set the clipboard (OSC 52).
 */
export function printable(line: string): string {
  return line.replace(TERMINAL_CONTROLS, (c) => (c.charCodeAt(0) < 0x100 ? `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}` : `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`));
}

/**
 * `value` as JSON for a terminal: `JSON.stringify` escapes the C0 controls but leaves DEL and the C1
 * controls (CSI, OSC, ...) as they are; here they are `\u00NN` escapes too, which read back as the
 * same JSON value.
 */
export function jsonText(value: unknown, indent?: number): string {
  return (JSON.stringify(value, null, indent) ?? "null").replace(UNESCAPED_IN_JSON, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** `n` and `word`, the word in the plural unless `n` is 1: "1 call", "2 calls". */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** `text` on one line, cut to `max` characters with an ellipsis. */
export function clip(text: string, max = 100): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

const json = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value) ?? "");

/** An error with its code in front, once: a call's recorded error often starts with its code already. */
const coded = (code: string | undefined, error: string) => (code && !error.startsWith(`${code}:`) ? `${code}: ${error}` : error);

/** One line for a frame, or null for frames that only feed the progress line (streaming deltas). */
export function frameLine(frame: EventFrame): string | null {
  const f = frame as { seq: number; type: string; data: any };
  const d = f.data ?? {};
  const head = `${String(f.seq).padStart(4)} `;
  switch (f.type) {
    case "text_delta":
    case "tool_call_delta":
      return null;
    case "thread_created":
      return `${head}thread created (agent ${d.agentId})`;
    case "message_created":
      return `${head}${messageLine(d.message)}`;
    case "turn_started":
      return `${head}turn ${d.resumed ? "resumed" : "started"}`;
    case "model_step": {
      const calls = (d.toolCalls ?? []).map((c: { name: string }) => c.name);
      return `${head}model step ${d.step}${d.text ? `: ${clip(d.text, 80)}` : ""}${calls.length ? ` → ${calls.join(", ")}` : ""}`;
    }
    case "model_step_discarded":
      return `${head}model step ${d.step} attempt ${d.attempt} discarded (asked again): ${clip(d.reason ?? "", 80)}`;
    case "tool_call_started":
      return `${head}→ ${d.toolName} ${clip(json(d.input), 80)}`;
    case "tool_call_finished":
      return `${head}← ${d.toolName} ${d.status} in ${d.durationMs} ms: ${clip(d.isError ? coded(d.errorCode, d.error ?? "") : json(d.result ?? ""), 80)}`;
    case "tool_call_approval_requested":
      return `${head}? ${d.toolName} waits for approval (call ${d.callId})`;
    case "tool_call_parked":
      return `${head}! ${d.toolName} parked: ${clip(d.reason ?? "", 80)} (call ${d.callId})`;
    case "turn_waiting":
      return `${head}turn waits for a person or the client: ${(d.callIds ?? []).join(", ")}`;
    case "turn_finished":
      return `${head}turn ${d.status} after ${plural(d.steps, "step")}${d.errorCode ? ` (${d.errorCode})` : ""}${d.error ? `: ${clip(d.error, 80)}` : ""}`;
    default:
      return `${head}${f.type} ${clip(json(d), 80)}`;
  }
}

/** `#id role: content` (an assistant message without text lists its calls). */
export function messageLine(m: Message): string {
  const body = m.content || (m.toolCalls ?? []).map((c) => `${c.name}(${clip(c.arguments, 40)})`).join(", ");
  return `#${m.id} ${m.side ? `${m.side} ` : ""}${m.role}${m.name ? ` ${m.name}` : ""}: ${clip(body)}`;
}

// Who runs a tool weft does not (GET /v1/tools's executionMode): `weft tool call` on one is tool_not_callable.
const MODEL_ONLY = { client: "client tool: only a model calls it, its client answers", provider: "provider tool: only a model calls it, its provider runs it" } as const;

/** Two lines per tool: name, effect, flags (a client or provider tool says so) and description; then its input schema. */
export function toolLines(tool: ToolListing): string[] {
  const mode = tool.executionMode === undefined ? "" : MODEL_ONLY[tool.executionMode];
  const flags = [tool.effect, tool.needsApproval ? "needs approval" : "", tool.endsTurn ? "ends turn" : "", mode].filter(Boolean).join(", ");
  return [`${tool.name} (${flags}): ${clip(tool.description, 100)}`, `  input: ${JSON.stringify(tool.inputSchema)}`];
}
