/**
 * A thread's behaviour, kept out of the Durable Object class so that class only delegates:
 * events, messages, and the `ThreadState` host. It holds nothing about a running execution. Its
 * calls move through its `CallRunner` (src/calls/runner.ts); turns are run by `TurnRunner` (runner.ts).
 * @module
 */
import { byteLength, fitsBytes } from "../bytes.js";
import { WeftError } from "../errors.js";
import { orderedId } from "../ids.js";
import type { EventFrame, EventPayloads, Message } from "../protocol.js";
import { BUILTIN_EVENT_TYPES } from "../protocol.js";
import { type AgentDefinition, type EnvDefault, type Registry, type ResolvedSide, findAgent, findPrompt, sidesOf } from "../run/agent.js";
import { systemText } from "../run/prompt.js";
import type { NewTurnMessage } from "../run/messages.js";
import type { CallExecution } from "../calls/call.js";
import type { CrashHook } from "../calls/context.js";
import { CallRunner } from "../calls/runner.js";
import type { ToolCatalog } from "../tools/catalog.js";
import type { JournalEntry } from "../tools/journal.js";
import type { ExecutionState } from "../tools/thread-state.js";
import { Callables } from "../run/callables.js";
import type { AccountNotices, ChildThreads } from "../ports/threads.js";
import { callWorldOf } from "../run/call-world.js";
import { logFailedCall } from "../run/call-log.js";
import { NO_USER_ENV, type UserEnvSource } from "../secrets/env.js";
import { createMessages } from "../run/hook-calls.js";
import type { RunWorld } from "../run/world.js";
import type { ThreadMeter } from "../usage/meter.js";
import { threadMeterOf } from "../usage/thread-meter.js";
import { type ThreadTracer, effectName, threadTracerOf } from "../usage/tracer.js";
import type { ThreadStore } from "./store/index.js";
import type { ThreadMeta } from "./store/meta.js";

/** How the engine reaches the Durable Object around it. */
export interface EngineHost {
  readonly store: ThreadStore;
  readonly registry: Registry;
  readonly workerEnv: Readonly<Record<string, unknown>>;
  /**
   * The user-account level of env resolution. Until user accounts exist this is `NO_USER_ENV`;
   * a deployment with accounts passes a source reading the thread user's stored values.
   */
  readonly userEnv?: UserEnvSource;
  /** The value with every secret of the thread replaced (applied to all that is stored or sent). */
  redact<T>(value: T): T;
  /**
   * An event's payload as it may be stored and sent, or null when nothing may be sent yet (a
   * stream delta that could be the start of a secret is held back until the next one).
   */
  redactEvent<K extends keyof EventPayloads>(type: K, data: EventPayloads[K]): EventPayloads[K] | null;
  /** Sends a frame to every connected WebSocket. */
  broadcast(frame: EventFrame): void;
  /** Makes sure the thread wakes by itself (an alarm) to finish durable work. */
  wakeSoon(): void;
  /** Resolves when all writes so far are durable (`storage.sync()`). */
  flush(): Promise<void>;
  /** Child agents' threads and the owner's account, across Durable Objects (the threads port). */
  readonly peers: ChildThreads & AccountNotices;
  /** Stores a new journal row and resolves once it is durable (see `CallContext.journalDurably`). */
  journalDurably(entry: JournalEntry): Promise<void>;
}

/** Bytes of JSON one custom event may carry (`state.emit`); a row must stay under 2 MB. */
export const MAX_EVENT_BYTES = 1024 * 1024;

/** Test seam of the crash matrix: called at each crash point of the pipeline (src/calls/context.ts). */
export type { CrashHook } from "../calls/context.js";

/** A call, turn or flow id: time-ordered (see `orderedId`), 16 random hex digits as before. */
const newId = (prefix: string) => orderedId(prefix, 16);

/** A thread's running behaviour over its store. */
export class ThreadEngine implements RunWorld {
  readonly agent: AgentDefinition;
  /** The agent's sides, side a first (one entry for a one-sided agent). */
  readonly sides: ResolvedSide[];
  /** What a model may call in each place of the thread (sides, prompts). */
  readonly callables: Callables;
  /** Set by crash-matrix tests only. */
  crashHook: CrashHook | null = null;
  /** Every way this thread's calls move (src/calls/runner.ts). */
  readonly calls: CallRunner;
  /** Meters model requests: budgets and the usage ledger (src/usage/). */
  readonly meter: ThreadMeter;
  /** Spans of the thread's turns, when `WEFT_OTLP_URL` names a collector (src/usage/tracer.ts). */
  private readonly tracer: ThreadTracer | null;

  constructor(
    private readonly host: EngineHost,
    readonly meta: ThreadMeta,
  ) {
    const agent = findAgent(host.registry, meta.agentId);
    if (!agent) throw new WeftError("agent_not_found", `no agent "${meta.agentId}"`);
    this.agent = agent;
    this.sides = sidesOf(host.registry, agent);
    this.callables = new Callables(this);
    this.calls = new CallRunner(callWorldOf(this, () => host.wakeSoon()));
    this.tracer = threadTracerOf(meta, host.workerEnv, (name) => {
      const all = this.callables.everything();
      return effectName(all.has(name) ? all.definition(name) : undefined);
    });
    this.meter = threadMeterOf(this, host.store.storage.sql, this.tracer);
  }

  get store(): ThreadStore {
    return this.host.store;
  }
  get registry(): Registry {
    return this.host.registry;
  }
  get workerEnv(): Readonly<Record<string, unknown>> {
    return this.host.workerEnv;
  }
  get peers(): ChildThreads & AccountNotices {
    return this.host.peers;
  }
  get userEnv(): UserEnvSource {
    return this.host.userEnv ?? NO_USER_ENV;
  }

  /** Side a's tools: what direct calls and `GET /v1/tools` see. */
  get catalog(): ToolCatalog {
    return this.callables.catalogFor(null);
  }

  /** The tools offered where `execution` runs (its prompt, else its side; side a at rest). */
  catalogFor(execution: CallExecution | null): ToolCatalog {
    return this.callables.catalogFor(execution);
  }

  /** The side `side` of this thread's agent (side a when the agent has one side). */
  side(side: "a" | "b" = "a"): ResolvedSide {
    return this.sides.find((s) => s.side === side) ?? this.sides[0]!;
  }

  /** Env defaults of the running prompt (the last of `promptPath`), else of the current side's prompt file. */
  promptEnv(execution?: ExecutionState): Readonly<Record<string, EnvDefault>> | undefined {
    const name = execution?.promptPath.at(-1) ?? this.side(execution?.currentSide).promptName;
    return name === undefined ? undefined : findPrompt(this.registry, name)?.env;
  }

  /** A side's system prompt for this thread's `arguments`. */
  system(side: "a" | "b" = "a"): string | undefined {
    return systemText(this.side(side).system, this.meta.arguments);
  }

  /** Stores messages through the create-message hooks (see src/run/hook-calls.ts `createMessages`). */
  createMessages(execution: CallExecution | null, messages: NewTurnMessage[], also?: () => void): Promise<Message[]> {
    return createMessages(this, execution, messages, also);
  }

  /** The value with every secret of the thread replaced. */
  redact<T>(value: T): T {
    return this.host.redact(value);
  }

  /** Stores and broadcasts one event. */
  /** The next new turn's trace continues the one a request's W3C `traceparent` names (src/usage/tracer.ts). */
  traceNextTurn(traceparent: string): void {
    this.tracer?.adopt(traceparent);
  }

  emit<K extends keyof EventPayloads>(type: K, data: EventPayloads[K]): void {
    const clean = this.host.redactEvent(type, data);
    if (clean !== null) this.host.broadcast(this.store.events.append(type, clean));
    this.tracer?.observe(type, data);
    if (type === "tool_call_finished") {
      const finished = data as EventPayloads["tool_call_finished"];
      // Only a failed call is logged: a success makes no closures for it.
      if (finished.isError) logFailedCall(this.workerEnv, finished, () => this.store.calls.get(finished.callId)?.result?.stack, (text) => this.host.redact(text));
    }
  }

  /**
   * Journals a fresh read (`entry`; null: the row is written already) and emits a call's
   * `tool_call_started` (null: announced already), both held in memory for now: a call that
   * answers within the current synchronous work stores its row with its result in one statement
   * and its two events in one (see `ThreadStore.settleSoon`).
   */
  holdStart(entry: JournalEntry | null, started: EventPayloads["tool_call_started"] | null): void {
    if (entry) this.store.calls.hold(entry);
    const clean = started && this.host.redactEvent("tool_call_started", started);
    if (clean) this.store.events.hold("tool_call_started", clean, this.broadcast);
    this.store.settleSoon();
  }

  /** Sends a stored frame to every socket. */
  private readonly broadcast = (frame: EventFrame): void => this.host.broadcast(frame);

  emitCustom(event: string, data: unknown): void {
    if (typeof event !== "string" || !/^[a-z][a-z0-9_.:-]{0,63}$/i.test(event) || BUILTIN_EVENT_TYPES.has(event)) {
      throw new WeftError("invalid_request", `emit: "${String(event)}" is not a usable event name (built-in names are reserved)`);
    }
    const clean = this.host.redact(data);
    const text = JSON.stringify(clean ?? null) ?? "null";
    // One event is one row: over the limit it would not store on Cloudflare (2 MB a row).
    if (!fitsBytes(text, MAX_EVENT_BYTES)) {
      throw new WeftError("payload_too_large", `emit: event "${event}" is ${byteLength(text)} bytes, over the ${MAX_EVENT_BYTES}-byte event limit; store large data with state files or a kv value and emit a reference`, {
        limit: MAX_EVENT_BYTES,
      });
    }
    this.host.broadcast(this.store.events.append(event, clean, Date.now(), text));
  }

  appendMessage(message: NewTurnMessage): Message {
    return this.appendMessages([message])[0]!;
  }

  /** Appends messages in one transaction (with `also` inside it), then emits `message_created`. */
  appendMessages(messages: NewTurnMessage[], also?: () => void): Message[] {
    const stored = this.store.atomically(() => {
      // Stored messages are what the model and every reader see: no secret gets in.
      const out = messages.map((m) => this.store.messages.append(this.host.redact(m)));
      also?.();
      return out;
    });
    for (const message of stored) this.emit("message_created", { message });
    return stored;
  }

  /** Resolves once every write so far is durable. */
  flush(): Promise<void> {
    return this.host.flush();
  }

  /** Stores a new journal row and resolves once it is durable (see `CallContext.journalDurably`). */
  journalDurably(entry: JournalEntry): Promise<void> {
    return this.host.journalDurably(entry);
  }

  /** Creates a new id for a call or turn. */
  newId(prefix: string): string {
    return newId(prefix);
  }
}
