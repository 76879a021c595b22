/**
 * A thread's stored conversation as AI SDK `UIMessage`s, so a `useChat` page that reloads shows
 * what the stream showed: each user message, and each run of assistant steps as one assistant
 * message whose tool parts take their state from weft's call records.
 * @module
 */
import type { UIMessage } from "ai";
import type { CallRecord, Message } from "../protocol.js";
import { approvalIdOf, outputOf } from "./ui-stream.js";

type Part = UIMessage["parts"][number];

/** The tool part of one call, in the state its record is in. */
function toolPart(call: { id: string; name: string; arguments: string }, record: CallRecord | undefined): Part {
  const base = { type: `tool-${call.name}`, toolCallId: call.id } as const;
  let input: unknown = record?.input;
  if (input === undefined) {
    try {
      input = JSON.parse(call.arguments);
    } catch {
      input = call.arguments;
    }
  }
  const approval = record?.argsHash ? { id: approvalIdOf(call.id, record.argsHash) } : undefined;
  switch (record?.status) {
    case "succeeded":
      return { ...base, state: "output-available", input, output: outputOf(record.result?.result), ...(record.approvedBy && approval ? { approval: { ...approval, approved: true as const } } : {}) } as Part;
    case "failed":
    case "aborted":
      return { ...base, state: "output-error", input, errorText: record.result?.error ?? record.status } as Part;
    case "denied":
      return { ...base, state: "output-denied", input, approval: { id: approval?.id ?? call.id, approved: false as const } } as Part;
    case "awaiting_approval":
      return { ...base, state: "approval-requested", input, approval: { id: approval?.id ?? call.id } } as Part;
    default:
      return { ...base, state: "input-available", input } as Part;
  }
}

/**
 * Converts messages (oldest first) and the thread's call records to UI messages. Tool-result
 * messages are not parts of their own: their call's record carries the result.
 */
export function toUIMessages(messages: readonly Message[], calls: readonly CallRecord[]): UIMessage[] {
  const records = new Map(calls.map((c) => [c.callId, c]));
  const out: UIMessage[] = [];
  let assistant: UIMessage | null = null;
  for (const m of messages) {
    if (m.role === "user" || m.role === "system") {
      assistant = null;
      out.push({ id: `m${m.id}`, role: m.role, parts: [{ type: "text", text: m.content }] });
    } else if (m.role === "assistant") {
      if (!assistant) out.push((assistant = { id: `m${m.id}`, role: "assistant", parts: [] }));
      assistant.parts.push({ type: "step-start" });
      if (m.content) assistant.parts.push({ type: "text", text: m.content, state: "done" });
      for (const call of m.toolCalls ?? []) if (!call.cutOff) assistant.parts.push(toolPart(call, records.get(call.id)));
    }
  }
  return out;
}
