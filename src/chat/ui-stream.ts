/**
 * A thread's events as the AI SDK's UI message stream (`UIMessageChunk`s), so a `useChat` app can
 * render a weft turn: text as it streams, each tool call with its input and output, approvals as
 * the SDK's tool-approval parts, denials as `output-denied`. Weft decides every state shown here;
 * nothing is taken from the client's copy of the conversation.
 * @module
 */
import type { UIMessageChunk } from "ai";
import { BUILTIN_EVENT_TYPES, type CallRecord, type CallStatus, type EventFrame, type EventPayloads } from "../protocol.js";
import { resultText } from "../calls/result.js";
import { NOTHING_TO_PLAY } from "../models/scripted.js";

/** The `approvalId` of a call waiting for approval: its call id and the hash of its arguments. */
export function approvalIdOf(callId: string, argsHash: string): string {
  return `${callId}:${argsHash}`;
}

/** The call id and argument hash in an `approvalId`, or null when weft did not make it. */
export function parseApprovalId(approvalId: string): { callId: string; argsHash: string } | null {
  const at = approvalId.lastIndexOf(":");
  if (at <= 0 || !/^[0-9a-f]{16,128}$/.test(approvalId.slice(at + 1))) return null;
  return { callId: approvalId.slice(0, at), argsHash: approvalId.slice(at + 1) };
}

/** A tool result as UI output: the JSON it holds, or the text itself. */
export function outputOf(result: string | undefined): unknown {
  if (result === undefined) return null;
  try {
    return JSON.parse(result);
  } catch {
    return result;
  }
}

/** A finished call's chunk: denied, an error with its text, or its output. */
function outcomeChunk(callId: string, status: CallStatus, isError: boolean, text: string | undefined): UIMessageChunk {
  if (status === "denied") return { type: "tool-output-denied", toolCallId: callId };
  if (isError) return { type: "tool-output-error", toolCallId: callId, errorText: text ?? "error" };
  return { type: "tool-output-available", toolCallId: callId, output: outputOf(text) };
}

type Payload<K extends keyof EventPayloads> = EventPayloads[K];

/** The type prefix of weft's own data parts (`data-weft-parked`, `data-weft-discarded`). */
const OWN_PART_PREFIX = "weft-";

/**
 * Turns event frames into UI message chunks, one frame at a time. The stream covers turns that
 * start (or resume) after it began, and ends at the first turn that finishes, or when the
 * thread waits for a person (`done` turns true after the closing `finish`).
 */
export class UiChunkTranslator {
  /** True once the closing `finish` chunk was produced. */
  done = false;
  private readonly turns = new Set<string>();
  private step: string | null = null;
  private text: { id: string; sent: string } | null = null;
  private readonly inputStarted = new Set<string>();
  /** Calls of the current step whose input began streaming, by id, with their tool. */
  private stepInputs = new Map<string, string>();
  /** Attempts of the current step discarded so far: a new attempt's text gets a new part id. */
  private discards = 0;
  private readonly known: Set<string>;

  /**
   * @param decided ids of calls the client already shows (the ones a request decides): their
   *   results belong in this stream though their model step came before it.
   */
  constructor(decided: readonly string[] = []) {
    this.known = new Set(decided);
  }

  /** The opening chunk. */
  start(): UIMessageChunk[] {
    return [{ type: "start" }];
  }

  /** The chunks for one frame (none for frames the UI does not show). */
  push(frame: EventFrame): UIMessageChunk[] {
    if (this.done) return [];
    const out: UIMessageChunk[] = [];
    switch (frame.type) {
      case "turn_started":
        this.turns.add((frame.data as Payload<"turn_started">).turnId);
        break;
      case "text_delta": {
        const d = frame.data as Payload<"text_delta">;
        if (!this.turns.has(d.turnId)) break;
        this.enterStep(d.turnId, d.step, out);
        this.openText(d.turnId, d.step, out);
        this.text!.sent += d.delta;
        out.push({ type: "text-delta", id: this.text!.id, delta: d.delta });
        break;
      }
      case "tool_call_delta": {
        const d = frame.data as Payload<"tool_call_delta">;
        if (!this.turns.has(d.turnId)) break;
        this.enterStep(d.turnId, d.step, out);
        if (!this.inputStarted.has(d.callId)) {
          this.inputStarted.add(d.callId);
          this.stepInputs.set(d.callId, d.toolName);
          out.push({ type: "tool-input-start", toolCallId: d.callId, toolName: d.toolName });
        }
        out.push({ type: "tool-input-delta", toolCallId: d.callId, inputTextDelta: d.delta });
        break;
      }
      case "model_step_discarded": {
        // The attempt was cut and is asked again: what it streamed ends here, marked so a page can hide it.
        const d = frame.data as Payload<"model_step_discarded">;
        if (!this.turns.has(d.turnId) || this.step !== `${d.turnId}:${d.step}`) break;
        this.closeText(out);
        for (const [callId, toolName] of this.stepInputs) {
          this.inputStarted.delete(callId);
          out.push({ type: "tool-input-error", toolCallId: callId, toolName, input: undefined, errorText: "discarded: the model's stream was cut, and the step is asked again" });
        }
        this.stepInputs.clear();
        this.discards += 1;
        out.push({ type: "data-weft-discarded", data: { turnId: d.turnId, step: d.step, attempt: d.attempt, reason: d.reason } });
        break;
      }
      case "model_step": {
        const d = frame.data as Payload<"model_step">;
        if (!this.turns.has(d.turnId)) break;
        this.enterStep(d.turnId, d.step, out);
        // Deltas are a prefix of the step's text: send what they did not carry.
        const rest = this.text && d.text.startsWith(this.text.sent) ? d.text.slice(this.text.sent.length) : this.text ? "" : d.text;
        if (rest !== "") {
          this.openText(d.turnId, d.step, out);
          out.push({ type: "text-delta", id: this.text!.id, delta: rest });
        }
        this.closeText(out);
        for (const call of d.toolCalls) {
          if (call.cutOff) continue;
          this.known.add(call.id);
          try {
            out.push({ type: "tool-input-available", toolCallId: call.id, toolName: call.name, input: JSON.parse(call.arguments) });
          } catch {
            out.push({ type: "tool-input-error", toolCallId: call.id, toolName: call.name, input: call.arguments, errorText: "arguments are not valid JSON" });
          }
        }
        break;
      }
      case "tool_call_started": {
        const d = frame.data as Payload<"tool_call_started">;
        // A model's call was announced by its step; a call a tool made (queue, invoke) appears here first.
        if (d.source !== "model") this.announce(d.callId, d.toolName, d.input, out);
        break;
      }
      case "tool_call_approval_requested": {
        const d = frame.data as Payload<"tool_call_approval_requested">;
        if (!this.shows(d.callId)) break;
        this.announce(d.callId, d.toolName, d.input, out);
        out.push({ type: "tool-approval-request", approvalId: approvalIdOf(d.callId, d.argsHash), toolCallId: d.callId });
        break;
      }
      case "tool_call_parked": {
        const d = frame.data as Payload<"tool_call_parked">;
        // A client tool's call is the client's already: its tool part (onToolCall) is what it answers.
        if (!this.shows(d.callId) || d.client) break;
        out.push({ type: "data-weft-parked", id: d.callId, data: { callId: d.callId, toolName: d.toolName, reason: d.reason } });
        break;
      }
      case "tool_call_finished": {
        const d = frame.data as Payload<"tool_call_finished">;
        if (d.source !== "model") this.announce(d.callId, d.toolName, undefined, out);
        else if (!this.known.has(d.callId)) break; // a call of a turn this stream did not see start
        out.push(outcomeChunk(d.callId, d.status, d.isError, d.isError ? (d.error ?? d.result ?? "error") : d.result));
        break;
      }
      case "message_created": {
        // A turn with no model and no script left ends without a reply: its notice is the stream's error, as a route that cannot reach a model would send.
        const { message } = frame.data as Payload<"message_created">;
        if (this.turns.size > 0 && message.role === "system" && message.content === NOTHING_TO_PLAY) out.push({ type: "error", errorText: message.content });
        break;
      }
      case "turn_waiting":
        // Nothing more comes until a person decides: the client shows the approval parts.
        this.finish(out, "tool-calls");
        break;
      case "turn_finished": {
        const d = frame.data as Payload<"turn_finished">;
        if (!this.turns.has(d.turnId)) break;
        if (d.status === "failed") out.push({ type: "error", errorText: d.error ?? "the turn failed" });
        this.finish(out, d.status === "completed" ? "stop" : d.status === "failed" ? "error" : "other");
        break;
      }
      default:
        // A tool's own event (`state.emit(type, data)`) while the stream is open: a data part of
        // that type with the type as its id, so the client keeps the last data of each type in the
        // message (the SDK replaces a data part of the same type and id). weft's own parts keep
        // their prefix: an emitted `weft-...` type is not forwarded.
        if (!BUILTIN_EVENT_TYPES.has(frame.type) && !frame.type.startsWith(OWN_PART_PREFIX)) out.push({ type: `data-${frame.type}`, id: frame.type, data: frame.data });
    }
    return out;
  }

  /**
   * The outcome of a call the client shows that was decided before this stream (a decision
   * resent from an older copy of the conversation, or from another tab): the chunk its
   * `tool_call_finished` gave, from its record.
   */
  decidedBefore(call: Pick<CallRecord, "callId" | "status" | "result">): UIMessageChunk[] {
    const isError = call.status !== "succeeded" || call.result?.status === "error";
    return [outcomeChunk(call.callId, call.status, isError, call.result ? resultText(call.result) : undefined)];
  }

  /**
   * Closes the stream early (the thread was already waiting, or nothing this request decided moves a
   * turn). `settled`: an answer the request carried was refused (the call was stopped or answered
   * before), so the stream ends in an empty step of its own: the client's last step no longer reads
   * as tool calls all answered, which `useChat`'s `sendAutomaticallyWhen` would send again at once.
   */
  finishNow(settled = false): UIMessageChunk[] {
    const out: UIMessageChunk[] = [];
    if (this.done) return out;
    if (settled) out.push({ type: "start-step" }, { type: "finish-step" });
    this.finish(out, settled ? "stop" : "tool-calls");
    return out;
  }

  /** A model's call shows when its step was in this stream (or the client has it); others always. */
  private shows(callId: string): boolean {
    return this.known.has(callId) || this.turns.size > 0;
  }

  private announce(callId: string, toolName: string, input: unknown, out: UIMessageChunk[]): void {
    if (this.known.has(callId)) return;
    this.known.add(callId);
    out.push({ type: "tool-input-available", toolCallId: callId, toolName, input });
  }

  private enterStep(turnId: string, step: number, out: UIMessageChunk[]): void {
    const key = `${turnId}:${step}`;
    if (this.step === key) return;
    this.closeStep(out);
    this.step = key;
    this.stepInputs.clear();
    this.discards = 0;
    out.push({ type: "start-step" });
  }

  private openText(turnId: string, step: number, out: UIMessageChunk[]): void {
    if (this.text) return;
    this.text = { id: `text_${turnId}_${step}${this.discards > 0 ? `_${this.discards + 1}` : ""}`, sent: "" };
    out.push({ type: "text-start", id: this.text.id });
  }

  private closeText(out: UIMessageChunk[]): void {
    if (!this.text) return;
    out.push({ type: "text-end", id: this.text.id });
    this.text = null;
  }

  private closeStep(out: UIMessageChunk[]): void {
    this.closeText(out);
    if (this.step !== null) out.push({ type: "finish-step" });
    this.step = null;
  }

  private finish(out: UIMessageChunk[], finishReason: "stop" | "error" | "other" | "tool-calls"): void {
    this.closeStep(out);
    out.push({ type: "finish", finishReason });
    this.done = true;
  }
}
