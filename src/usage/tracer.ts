/**
 * A thread's traces, following the OpenTelemetry GenAI semantic conventions: one trace per turn,
 * its `invoke_agent` span the root, a `chat` span per model request and an `execute_tool` span per
 * tool call under it, and a `run_code` span per `state.runCode` run under its tool call's span. Spans carry ids, names, counts and times, never message content, arguments,
 * results or secrets. Built from the thread's own events and the usage meter's rows, so no layer
 * of a turn calls it; sent when the turn ends or waits (otlp.ts).
 * @module
 */
import type { EventPayloads } from "../protocol.js";
import { settingOf } from "../config.js";
import { MAX_OTLP_DELAY_MS, OTLP_DELAY_MS, OtlpExporter, type OtlpProtocol, hexId } from "./otlp.js";
import { type AttributeValue, Double } from "./span.js";
import type { ModelUsageRow } from "./row.js";
import { log } from "../log.js";

/** What the tracer knows of its thread. */
export interface TracedThread {
  threadId: string;
  agentId: string;
  userId: string | null;
}

interface OpenTurn {
  traceId: string;
  spanId: string;
  /** The span of the request that started the turn (its W3C `traceparent`), if one came. */
  parentSpanId?: string;
  startMs: number;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/;

/**
 * A W3C `traceparent` header's trace and parent span ids (version 00), or null for a value that
 * is not one or names the all-zero trace or span (which the standard says to ignore).
 */
export function parseTraceparent(value: string | undefined): { traceId: string; spanId: string } | null {
  const m = value === undefined ? null : TRACEPARENT.exec(value.trim());
  if (!m || /^0+$/.test(m[1]!) || /^0+$/.test(m[2]!)) return null;
  return { traceId: m[1]!, spanId: m[2]! };
}

/** The name an `execute_tool` span gives a tool the model asked for that is not one of the thread's (no tool name has parentheses). */
export const UNKNOWN_TOOL = "(unknown)";

/** Longest tool name or model id a span carries, in characters (MCP tool names run to 128). */
export const MAX_SPAN_NAME_CHARS = 128;

/**
 * Longest call id a span carries, in characters: the providers' own ids are shorter (Anthropic's
 * `toolu_` + 24, OpenAI's `call_` + 24); a longer one, which only an endpoint a user points a
 * thread at sends, is cut and ends with `…`.
 */
export const MAX_SPAN_CALL_ID_CHARS = 40;

/** What the tracer is told of its thread's tools and secrets. */
export interface TracerHooks {
  /** A tool's declared effect (`read`, `write`, ...; `dynamic` when it depends on the input), if known. */
  effectOf?: (toolName: string) => string | undefined;
  /** Whether a tool name is one of the thread's tools; one that is not (the model made it up) is named {@link UNKNOWN_TOOL}. */
  isTool?: (toolName: string) => boolean;
  /** Replaces the thread's secret values in text, as its events are redacted. */
  redact?: (text: string) => string;
}

/** Builds and exports one thread instance's spans. */
export class ThreadTracer {
  private readonly turns = new Map<string, OpenTurn>();
  /** The turn whose calls run now (one turn runs at a time in a thread). */
  private current: string | null = null;
  /** Tool calls under way: when each started and the span it will be (its `runCode` runs are its children). */
  private readonly openTools = new Map<string, { startMs: number; traceId: string; spanId: string }>();
  /** The `traceparent` of the request that posted the message the next new turn answers. */
  private adopted: { traceId: string; spanId: string } | null = null;

  constructor(
    private readonly thread: TracedThread,
    readonly exporter: OtlpExporter,
    private readonly hooks: TracerHooks = {},
  ) {}

  /** Text of the model or the user as a span carries it: the thread's secrets redacted, at most `max` characters. */
  private clean(text: string, max: number): string {
    const redacted = this.hooks.redact ? this.hooks.redact(text) : text;
    return redacted.length > max ? `${redacted.slice(0, max - 1)}…` : redacted;
  }

  /** A tool's name as a span carries it: {@link UNKNOWN_TOOL} for a name that is none of the thread's tools. */
  private toolName(name: string): string {
    return this.hooks.isTool && !this.hooks.isTool(name) ? UNKNOWN_TOOL : this.clean(name, MAX_SPAN_NAME_CHARS);
  }

  private get common(): Record<string, AttributeValue> {
    return { "gen_ai.conversation.id": this.thread.threadId, "weft.thread.id": this.thread.threadId, ...(this.thread.userId ? { "enduser.id": this.thread.userId } : {}) };
  }

  /** The next new turn's trace continues the one a request's W3C `traceparent` names (ignored when malformed). */
  adopt(traceparent: string | undefined): void {
    const parent = parseTraceparent(traceparent);
    if (parent) this.adopted = parent;
  }

  /** Observes one of the thread's events (turns and tool calls). */
  observe<K extends keyof EventPayloads>(type: K, data: EventPayloads[K], now = Date.now()): void {
    if (type === "turn_started") {
      const { turnId } = data as EventPayloads["turn_started"];
      const known = this.turns.get(turnId);
      const parent = known ? null : this.adopted;
      this.adopted = known ? this.adopted : null;
      this.turns.set(turnId, {
        traceId: known?.traceId ?? parent?.traceId ?? hexId(16),
        spanId: hexId(8),
        ...(known?.parentSpanId ? { parentSpanId: known.parentSpanId } : parent ? { parentSpanId: parent.spanId } : {}),
        startMs: now,
      });
      this.current = turnId;
    } else if (type === "tool_call_started") {
      const turn = this.currentTurn;
      this.openTools.set((data as EventPayloads["tool_call_started"]).callId, { startMs: now, traceId: turn?.traceId ?? hexId(16), spanId: hexId(8) });
    } else if (type === "tool_call_finished") {
      this.tool(data as EventPayloads["tool_call_finished"], now);
    } else if (type === "turn_waiting" || type === "turn_finished") {
      const d = data as { turnId: string; status?: string; errorCode?: string };
      this.endTurn(d.turnId, type === "turn_waiting" ? "waiting" : (d.status ?? "completed"), d.errorCode, now);
    }
  }

  /** A model request's `chat` span, from its ledger row. */
  chat(row: ModelUsageRow, finishReason: string): void {
    const turn = this.turns.get(row.turnId);
    const model = this.clean(row.model.includes(":") ? row.model.slice(row.model.indexOf(":") + 1) : row.model, MAX_SPAN_NAME_CHARS);
    this.exporter.add({
      traceId: turn?.traceId ?? hexId(16),
      spanId: hexId(8),
      ...(turn ? { parentSpanId: turn.spanId } : {}),
      name: `chat ${model}`,
      kind: 3,
      startMs: row.at - row.durationMs,
      endMs: row.at,
      attributes: {
        ...this.common,
        "gen_ai.operation.name": "chat",
        // weft's `openai-chat` is OpenAI's Chat Completions API: the provider is `openai`.
        "gen_ai.provider.name": row.provider.replace(/-chat$/, ""),
        "gen_ai.request.model": model,
        "gen_ai.usage.input_tokens": row.inputTokens,
        "gen_ai.usage.output_tokens": row.outputTokens,
        // Included in input_tokens, as the conventions say; written only when the provider reported some.
        ...(row.cachedInputTokens > 0 ? { "gen_ai.usage.cache_read.input_tokens": row.cachedInputTokens } : {}),
        ...(row.cacheWriteTokens > 0 ? { "gen_ai.usage.cache_creation.input_tokens": row.cacheWriteTokens } : {}),
        ...(row.reasoningTokens > 0 ? { "weft.usage.reasoning_tokens": row.reasoningTokens } : {}),
        // No price for the model: the cost is unknown, said as such rather than as 0.
        ...(row.costMicroUsd === null ? { "weft.usage.cost_unknown": true } : { "weft.usage.cost_usd": new Double(row.costMicroUsd / 1e6) }),
        "gen_ai.response.finish_reasons": [finishReason],
        "weft.turn.id": row.turnId,
        "weft.step": row.step,
        ...(row.estimated ? { "weft.usage.estimated": true } : {}),
      },
      status: finishReason === "error" || finishReason === "interrupted" ? 2 : 0,
    });
  }

  private get currentTurn(): OpenTurn | undefined {
    return this.current !== null ? this.turns.get(this.current) : undefined;
  }

  /**
   * A `state.runCode` run's `run_code` span, under the span of the tool call that ran it (else the
   * turn's): which executor, how it ended and how long it took (wall time; the sandbox reports no
   * CPU time). `startMs` and `endMs` are epoch milliseconds.
   */
  code(run: { executionId: string; callId?: string; executor: string; status: string; startMs: number; endMs: number }): void {
    const tool = run.callId !== undefined ? this.openTools.get(run.callId) : undefined;
    const turn = this.currentTurn;
    const parent = tool ?? turn;
    this.exporter.add({
      traceId: parent?.traceId ?? hexId(16),
      spanId: hexId(8),
      ...(parent ? { parentSpanId: parent.spanId } : {}),
      name: `run_code ${run.executor}`,
      kind: 1,
      startMs: run.startMs,
      endMs: run.endMs,
      attributes: { ...this.common, "weft.code.execution_id": run.executionId, "weft.code.executor": run.executor, "weft.code.status": run.status, ...(run.callId !== undefined ? { "gen_ai.tool.call.id": this.clean(run.callId, MAX_SPAN_CALL_ID_CHARS) } : {}), ...(this.current !== null ? { "weft.turn.id": this.current } : {}) },
      status: run.status === "success" ? 1 : 2,
    });
  }

  private tool(d: EventPayloads["tool_call_finished"], now: number): void {
    const open = this.openTools.get(d.callId);
    this.openTools.delete(d.callId);
    const turn = this.currentTurn;
    const effect = d.providerExecuted ? "provider" : this.hooks.effectOf?.(d.toolName);
    // The model chose the name and the id: neither may carry what it was told (a secret, the conversation).
    const name = d.providerExecuted ? this.clean(d.toolName, MAX_SPAN_NAME_CHARS) : this.toolName(d.toolName);
    this.exporter.add({
      traceId: turn?.traceId ?? open?.traceId ?? hexId(16),
      spanId: open?.spanId ?? hexId(8),
      ...(turn ? { parentSpanId: turn.spanId } : {}),
      name: `execute_tool ${name}`,
      kind: 1,
      startMs: open?.startMs ?? now - d.durationMs,
      endMs: now,
      attributes: {
        ...this.common,
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": name,
        "gen_ai.tool.call.id": this.clean(d.callId, MAX_SPAN_CALL_ID_CHARS),
        ...(this.current !== null ? { "weft.turn.id": this.current } : {}),
        "weft.tool.source": d.source,
        "weft.tool.status": d.status,
        "weft.tool.attempts": d.attempts,
        ...(effect ? { "weft.tool.effect": effect } : {}),
      },
      status: d.isError ? 2 : 1,
    });
    // A call outside any turn (a direct call) is its own trace: complete now.
    if (!turn) this.exporter.soon();
  }

  private endTurn(turnId: string, status: string, errorCode: string | undefined, now: number): void {
    const turn = this.turns.get(turnId);
    if (!turn) return;
    this.exporter.add({
      traceId: turn.traceId,
      spanId: turn.spanId,
      ...(turn.parentSpanId ? { parentSpanId: turn.parentSpanId } : {}),
      name: `invoke_agent ${this.thread.agentId}`,
      kind: 1,
      startMs: turn.startMs,
      endMs: now,
      attributes: { ...this.common, "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": this.thread.agentId, "weft.turn.id": turnId, "weft.turn.status": status, ...(errorCode ? { "weft.turn.error_code": errorCode } : {}) },
      status: status === "failed" ? 2 : 1,
    });
    if (status !== "waiting") this.turns.delete(turnId);
    if (this.current === turnId) this.current = null;
    this.exporter.soon();
  }
}

/**
 * The thread's tracer when the deployment names a collector (`WEFT_OTLP_URL`), sending in the
 * encoding `WEFT_OTLP_PROTOCOL` names; null otherwise, at no cost. A protocol that is neither
 * `http/protobuf` nor `http/json` is logged and the default (`http/protobuf`) is used: a typo in a
 * tracing setting never fails a thread.
 */
export function threadTracerOf(thread: TracedThread, env: Readonly<Record<string, unknown>>, hooks?: TracerHooks): ThreadTracer | null {
  const url = env.WEFT_OTLP_URL;
  if (typeof url !== "string" || url === "") return null;
  return new ThreadTracer(thread, new OtlpExporter(url, undefined, otlpProtocolOf(env), otlpDelayOf(env)), hooks);
}

function otlpDelayOf(env: Readonly<Record<string, unknown>>): number {
  const named = settingOf(env, "WEFT_OTLP_DELAY_MS");
  const ms = Number(named);
  if (/^\d+$/.test(named) && ms <= MAX_OTLP_DELAY_MS) return ms;
  log("error", `weft: WEFT_OTLP_DELAY_MS: expected whole milliseconds from 0 to ${MAX_OTLP_DELAY_MS}, got ${JSON.stringify(named)}; using ${OTLP_DELAY_MS}`);
  return OTLP_DELAY_MS;
}

function otlpProtocolOf(env: Readonly<Record<string, unknown>>): OtlpProtocol {
  const named = settingOf(env, "WEFT_OTLP_PROTOCOL");
  if (named === "http/protobuf" || named === "http/json") return named;
  log("error", `weft: WEFT_OTLP_PROTOCOL: expected "http/protobuf" or "http/json", got ${JSON.stringify(named)}; sending http/protobuf`);
  return "http/protobuf";
}

/** A tool's effect as a span names it: as declared, `write` when undeclared (the effect table's default), `dynamic` when a function of the input. */
export function effectName(definition: { effect?: unknown } | undefined): string | undefined {
  if (!definition) return undefined;
  if (typeof definition.effect === "function") return "dynamic";
  return typeof definition.effect === "string" ? definition.effect : "write";
}
