/**
 * Live events of a streaming model step. Text and argument deltas are coalesced: nothing is sent
 * until the step has streamed for `flushMs` or buffered `flushBytes`, then one event per flush, so
 * a fast stream never writes a row per token and a step that arrives at once (the scripted model)
 * adds no delta events at all; what is left when the step ends is in its `model_step` event.
 * Arguments are parsed as they stream; a tool's `progressArgument` announces the call
 * (`tool_call_started`, carrying that argument) as soon as the argument has finished streaming.
 * @module
 */
import type { EventPayloads } from "../protocol.js";
import type { ModelStreamPart } from "../models/model.js";
import { JsonArgumentStream } from "./partial-json.js";
import type { StepObserver } from "./step.js";

/** Default coalescing window in milliseconds: at most one delta event per call (or for text) every 100 ms, unless {@link STREAM_FLUSH_BYTES} fill first. */
export const STREAM_FLUSH_MS = 100;
/** Default coalescing size in bytes (1 KiB of buffered delta text): reaching it flushes a delta event before {@link STREAM_FLUSH_MS} has passed. */
export const STREAM_FLUSH_BYTES = 1024;

/** What the step's events go to. */
export interface StreamEventsHost {
  emit<K extends keyof EventPayloads>(type: K, data: EventPayloads[K]): void;
  /** The `progressArgument` of a tool, if it declares one. */
  progressArgumentOf(toolName: string): string | undefined;
  /** Announces a call early (its progress argument finished streaming): event and hook. */
  announce(call: EventPayloads["tool_call_started"]): Promise<void>;
  /** The id a call the stream names `id` is announced under (the id rules of a model's calls); `id` itself when not given. */
  idOf?(id: string): string;
  now?(): number;
}

interface OpenCall {
  id: string;
  toolName: string;
  args: JsonArgumentStream;
  pending: string;
  progressArg: string | undefined;
  announced: boolean;
}

/** Observes one step's stream and emits its coalesced events. */
export class StreamEvents implements StepObserver {
  private readonly calls = new Map<string, OpenCall>();
  private text = "";
  /** When the window began: the step's first part (the request before it is not streaming), then each flush. */
  private lastFlush: number | null = null;
  /** Calls announced while they streamed, by the id the stream named them with: the id each was announced under. */
  private readonly announced = new Map<string, string>();
  /** Ids the stream named more than one call with: an announcement under one cannot be told apart. */
  private readonly repeated = new Set<string>();
  /** Whether any delta event went out: a retried attempt must then tell clients to drop them. */
  sent = false;

  constructor(
    private readonly host: StreamEventsHost,
    private readonly turnId: string,
    private readonly step: number,
    private readonly limits = { flushMs: STREAM_FLUSH_MS, flushBytes: STREAM_FLUSH_BYTES },
  ) {}

  async part(part: ModelStreamPart): Promise<void> {
    this.lastFlush ??= this.now();
    switch (part.type) {
      case "text-delta":
        this.text += part.delta;
        break;
      case "tool-input-start":
        if (this.calls.has(part.id)) this.repeated.add(part.id);
        this.calls.set(part.id, {
          id: part.id,
          toolName: part.toolName,
          args: new JsonArgumentStream(),
          pending: "",
          progressArg: this.host.progressArgumentOf(part.toolName),
          announced: false,
        });
        break;
      case "tool-input-delta": {
        const call = this.calls.get(part.id);
        if (!call) break;
        call.pending += part.delta;
        const done = call.args.push(part.delta);
        if (call.progressArg && !call.announced && done.some((m) => m.key === call.progressArg)) await this.announceCall(call);
        break;
      }
      default:
        return;
    }
    if (this.due()) this.flush();
  }

  /** Whether any call was announced (its hook ran): the step was acted on. */
  get anyAnnounced(): boolean {
    return this.announced.size > 0;
  }

  /**
   * The id the call the stream named `id` was announced under, if it was and the stream named no
   * other call so. Its dispatch must not announce it again when that is the id it is stored with.
   */
  announcedAs(id: string): string | undefined {
    return this.repeated.has(id) ? undefined : this.announced.get(id);
  }

  private announceCall(call: OpenCall): Promise<void> {
    call.announced = true;
    const callId = this.host.idOf?.(call.id) ?? call.id;
    this.announced.set(call.id, callId);
    // Finished members only: a string still streaming may be the start of a secret that
    // redaction, which sees whole values, cannot recognise yet.
    const input = call.args.preview(false) ?? {};
    const progress = input[call.progressArg!];
    return this.host.announce({
      callId,
      toolName: call.toolName,
      source: "model",
      input,
      ...(typeof progress === "string" ? { progress } : {}),
    });
  }

  private now(): number {
    return this.host.now?.() ?? Date.now();
  }

  private due(): boolean {
    const buffered = this.text.length + [...this.calls.values()].reduce((n, c) => n + c.pending.length, 0);
    return buffered >= this.limits.flushBytes || this.now() - this.lastFlush! >= this.limits.flushMs;
  }

  /** Sends what is buffered, keeping back a trailing half of a surrogate pair. */
  private flush(): void {
    this.lastFlush = this.now();
    if (this.text !== "" || [...this.calls.values()].some((c) => c.pending !== "")) this.sent = true;
    const [text, keepText] = wholeCharacters(this.text);
    for (const delta of pieces(text)) this.host.emit("text_delta", { turnId: this.turnId, step: this.step, delta });
    this.text = keepText;
    for (const call of this.calls.values()) {
      const [all, keep] = wholeCharacters(call.pending);
      call.pending = keep;
      if (all === "") continue;
      // No preview here: the thread parses one from the argument text it releases (src/secrets/thread-secrets.ts).
      for (const delta of pieces(all)) this.host.emit("tool_call_delta", { turnId: this.turnId, step: this.step, callId: call.id, toolName: call.toolName, delta });
    }
  }
}

/** UTF-16 units of one delta event: at most 3 bytes each, so an event row stays far under 2 MB. */
const MAX_DELTA_UNITS = 128 * 1024;

/** Splits text into deltas of at most {@link MAX_DELTA_UNITS} units, never inside a surrogate pair. */
function pieces(text: string): string[] {
  const out: string[] = [];
  for (let rest = text; rest !== ""; ) {
    const [head] = rest.length > MAX_DELTA_UNITS ? wholeCharacters(rest.slice(0, MAX_DELTA_UNITS)) : [rest];
    out.push(head);
    rest = rest.slice(head.length);
  }
  return out;
}

/** Splits off a trailing high surrogate, which must travel with its low half. */
function wholeCharacters(text: string): [string, string] {
  const last = text.charCodeAt(text.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? [text.slice(0, -1), text.slice(-1)] : [text, ""];
}
