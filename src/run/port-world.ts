/**
 * The `RunWorld` of one thread, built over the ports alone: its tables (`ThreadTables`), its call
 * ledger (`Ledger`), its event sink (`EventSink`) and the Durable Objects around it
 * (`ChildThreads`, `AccountNotices`), with the thread's settings. The Durable Object shell
 * (src/thread/core.ts) builds it from the SQLite implementations; nothing here knows them.
 * @module
 */
import { byteLength, fitsBytes } from "../bytes.js";
import { WeftError } from "../errors.js";
import { orderedId } from "../ids.js";
import type { EventPayloads, Message } from "../protocol.js";
import { BUILTIN_EVENT_TYPES } from "../protocol.js";
import type { CallExecution } from "../calls/call.js";
import type { CallBook, CrashHook } from "../calls/context.js";
import { CallRunner } from "../calls/runner.js";
import type { EventSink } from "../ports/events.js";
import type { Ledger } from "../ports/ledger.js";
import type { ThreadMeta } from "../ports/store.js";
import type { AccountNotices, ChildThreads } from "../ports/threads.js";
import type { ToolCatalog } from "../tools/catalog.js";
import type { JournalEntry } from "../tools/journal.js";
import type { ExecutionState } from "../tools/thread-state.js";
import { NO_USER_ENV, type UserEnvSource } from "../secrets/env.js";
import { type AgentDefinition, type EnvDefault, type Registry, type ResolvedSide, findPrompt } from "./agent.js";
import { type ThreadAgent, requireAgentOf, threadAgentOf } from "./gone-agent.js";
import { Callables } from "./callables.js";
import { logFailedCall } from "./call-log.js";
import { ThreadCallWorld } from "./call-world.js";
import { createMessages } from "./hook-calls.js";
import type { NewTurnMessage } from "./messages.js";
import { systemText } from "./prompt.js";
import { removedThread, revocable } from "./revocable.js";
import type { RunTables, RunWorld, ScheduleControl } from "./world.js";
import type { ThreadMeter } from "../usage/meter.js";
import { type ThreadTracer, effectName, threadTracerOf } from "../usage/tracer.js";
import type { CodeRunEnd } from "../sandbox/run-code.js";
import type { Redactor } from "../secrets/redact.js";

/** What a thread's world is built from: its ports and its settings. */
export interface WorldParts {
  /** The thread's tables. */
  readonly tables: RunTables;
  /** The call journal with its commit machinery (held rows, the settle window, group commit). */
  readonly ledger: Ledger & CallBook;
  /** Where events go: redacted, stored with their seq, broadcast. */
  readonly events: EventSink;
  /** Child agents' threads and the owner's account, across Durable Objects. */
  readonly peers: ChildThreads & AccountNotices;
  /** The agents, prompts and tools the thread can name. */
  readonly registry: Registry;
  /** The Worker's vars and secrets (the last level of env resolution). */
  readonly workerEnv: Readonly<Record<string, unknown>>;
  /** The user-account level of env resolution; absent: none (`NO_USER_ENV`). */
  readonly userEnv?: UserEnvSource;
  /** The thread's redactor now (it changes with the thread's secrets): every message, file and path stored goes through it. */
  readonly redactor: () => Redactor;
  /** Makes sure the thread wakes by itself (an alarm) to drain what was queued. */
  readonly wakeSoon: () => void;
  /**
   * Makes the thread's meter (budgets and the usage ledger, src/usage/) once the world exists;
   * absent: model requests are not metered. The shell builds it, so src/run/ reaches no account code.
   */
  readonly meter?: (world: PortWorld, tracer: ThreadTracer | null) => ThreadMeter;
}

/** Bytes of JSON one custom event may carry (`state.emit`); a row must stay under 2 MB. */
export const MAX_EVENT_BYTES = 1024 * 1024;

/** A call, turn or flow id: time-ordered (see `orderedId`), 16 random hex digits as before. */
const newId = (prefix: string) => orderedId(prefix, 16);

/** A thread's running behaviour over its ports. */
export class PortWorld implements RunWorld {
  readonly agent: AgentDefinition;
  /** The agent's sides, side a first (one entry for a one-sided agent). */
  readonly sides: ResolvedSide[];
  /** What a model may call in each place of the thread (sides, prompts). */
  readonly callables: Callables;
  /** Set by crash-matrix tests only. */
  crashHook: CrashHook | null = null;
  /** Set by the Durable Object when it removes the thread (src/thread/core.ts); see `RunWorld.removed`. */
  removed = false;
  /** Every way this thread's calls move (src/calls/runner.ts). */
  readonly calls: CallRunner;
  readonly store: RunTables;
  /** The call journal (the `CallWorld`'s), with its commit machinery. */
  readonly ledger: Ledger & CallBook;
  readonly registry: Registry;
  readonly workerEnv: Readonly<Record<string, unknown>>;
  readonly userEnv: UserEnvSource;
  readonly peers: ChildThreads & AccountNotices;
  /** The value with every secret of the thread replaced. */
  readonly redact: <T>(value: T) => T;
  readonly redactor: () => Redactor;
  private readonly events: EventSink;
  /**
   * Meters model requests: budgets and the usage ledger (src/usage/); absent: not metered. Made at
   * its first use, so a thread that runs no model (direct calls alone) keeps none in memory.
   */
  get meter(): ThreadMeter | undefined {
    if (this.makeMeter) {
      this.madeMeter = this.makeMeter(this, this.tracer);
      this.makeMeter = undefined;
    }
    return this.madeMeter;
  }

  /** The meter if something has used it; a budget change hands over only what a meter holds. */
  get meterInUse(): ThreadMeter | undefined {
    return this.madeMeter;
  }

  private makeMeter: WorldParts["meter"];
  private madeMeter: ThreadMeter | undefined;
  /** Spans of the thread's turns, when `WEFT_OTLP_URL` names a collector (src/usage/tracer.ts). */
  private readonly tracer: ThreadTracer | null;
  /** The thread's schedules (set by the Durable Object, src/thread/core.ts), refused once it is removed. */
  get schedules(): ScheduleControl | undefined {
    return this.scheduleControl;
  }
  set schedules(control: ScheduleControl | undefined) {
    this.scheduleControl = control && revocable(control, () => this.removed, removedThread, ["runs"]);
  }
  private scheduleControl: ScheduleControl | undefined;

  /** Never throws for an agent the registry lacks: the thread starts without it (see `requireAgent`). */
  constructor(
    parts: WorldParts,
    readonly meta: ThreadMeta,
  ) {
    // The parts are the Durable Object's, shared with the thread a later create makes on its id.
    const live = <T extends object>(part: T): T => revocable(part, () => this.removed, removedThread);
    this.store = live(parts.tables);
    this.ledger = live(parts.ledger);
    this.events = live(parts.events);
    this.registry = parts.registry;
    this.workerEnv = parts.workerEnv;
    this.userEnv = parts.userEnv ?? NO_USER_ENV;
    this.peers = parts.peers;
    this.redactor = parts.redactor;
    this.redact = (value) => parts.redactor().value(value);
    this.resolved = threadAgentOf(parts.registry, meta.agentId);
    this.agent = this.resolved.agent;
    this.sides = this.resolved.sides;
    this.callables = new Callables(this);
    this.calls = new CallRunner(new ThreadCallWorld(this, parts.wakeSoon));
    this.tracer = threadTracerOf(meta, parts.workerEnv, {
      effectOf: (name) => {
        const all = this.callables.everything();
        return effectName(all.has(name) ? all.definition(name) : undefined);
      },
      isTool: (name) => this.callables.everything().has(name),
      redact: (text) => this.redact(text),
    });
    this.makeMeter = parts.meter;
    const tracer = this.tracer;
    if (tracer) this.traceCode = (run) => tracer.code(run);
  }

  /** Told of each `state.runCode` run's end: its `run_code` span (only when the thread makes spans). */
  readonly traceCode?: (run: CodeRunEnd) => void;

  /** The next new turn's trace continues the one a request's W3C `traceparent` names (src/usage/tracer.ts). */
  traceNextTurn(traceparent: string): void {
    this.tracer?.adopt(traceparent);
  }

  private readonly resolved: ThreadAgent;

  /** Why the thread's agent cannot run in this deployment (src/run/gone-agent.ts); null when it can. */
  get agentMissing(): ThreadAgent["missing"] {
    return this.resolved.missing;
  }

  /** @throws WeftError `agent_not_found` when this deployment no longer has the thread's agent (src/run/gone-agent.ts). */
  requireAgent(): void {
    requireAgentOf(this.meta.agentId, this.resolved);
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
  createMessages(execution: CallExecution | null, messages: NewTurnMessage[], also?: (stored: readonly Message[]) => void, stop?: AbortSignal): Promise<Message[]> {
    return createMessages(this, execution, messages, also, stop);
  }

  /**
   * Stores and broadcasts one event through the event sink (which redacts it first), held for the
   * settle window: the events of one synchronous stretch are stored by one statement, in one row.
   */
  emit<K extends keyof EventPayloads>(type: K, data: EventPayloads[K]): void {
    this.events.hold(type, data);
    this.tracer?.observe(type, data);
    if (type === "tool_call_finished") {
      const finished = data as EventPayloads["tool_call_finished"];
      // Only a failed call is logged: a success makes no closures for it.
      if (finished.isError) logFailedCall(this.workerEnv, this.meta.threadId, finished, () => this.ledger.get(finished.callId)?.result?.stack, (text) => this.redact(text));
    }
  }

  /**
   * Journals a fresh read (`entry`; null: the row is written already) and emits a call's
   * `tool_call_started` (null: announced already), both held in memory for now: a call that
   * answers within the current synchronous work stores its row with its result in one statement
   * and its two events in one (the ledger's `beginHeld`, the sink's `hold`).
   */
  holdStart(entry: JournalEntry | null, started: EventPayloads["tool_call_started"] | null): void {
    if (entry) this.ledger.beginHeld(entry);
    if (started) {
      this.events.hold("tool_call_started", started);
      this.tracer?.observe("tool_call_started", started);
    }
  }

  /**
   * Emits a tool's custom event (`state.emit`).
   * @throws WeftError `invalid_request` for a name that is not usable (built-in names are
   * reserved) or data with no JSON form; `payload_too_large` for data over {@link MAX_EVENT_BYTES} once redacted.
   */
  emitCustom(event: string, data: unknown): void {
    // Refused before the data is redacted and measured: a removed thread's code learns nothing of the secrets now in force.
    if (this.removed) throw removedThread();
    if (typeof event !== "string" || !/^[a-z][a-z0-9_.:-]{0,63}$/i.test(event) || BUILTIN_EVENT_TYPES.has(event)) {
      throw new WeftError("invalid_request", `emit: "${String(event)}" is not a usable event name (built-in names are reserved)`);
    }
    // The tool's own data: its numbers are searched too (a numeric secret emitted as a number).
    const clean = this.redactor().content(data);
    const text = JSON.stringify(clean ?? null) as string | undefined;
    if (text === undefined) throw new WeftError("invalid_request", `emit: event "${event}" has data with no JSON form (a function or a symbol)`);
    // An event never spans rows: over the limit it would not store on Cloudflare (2 MB a row).
    if (!fitsBytes(text, MAX_EVENT_BYTES)) {
      throw new WeftError("payload_too_large", `emit: event "${event}" is ${byteLength(text)} bytes, over the ${MAX_EVENT_BYTES}-byte event limit; store large data with state files or a kv value and emit a reference`, {
        limit: MAX_EVENT_BYTES,
      });
    }
    // Held: a burst of emits is stored in a few multi-row INSERTs (16 events each) instead of one per
    // event; redacted and serialized once, here.
    this.events.holdRedacted(event, clean, text);
  }

  /** Appends one message (redacted) and emits `message_created`. */
  appendMessage(message: NewTurnMessage): Message {
    return this.appendMessages([message])[0]!;
  }

  /** Appends messages in one transaction (with `also` inside it), then emits `message_created`. */
  appendMessages(messages: NewTurnMessage[], also?: (stored: readonly Message[]) => void): Message[] {
    const stored = this.store.atomically(() => {
      // Stored messages are what the model and every reader see: no secret gets in.
      const out = messages.map((m) => this.store.messages.append(this.redact(m)));
      also?.(out);
      return out;
    });
    for (const message of stored) this.emit("message_created", { message });
    return stored;
  }

  /** Resolves once every write so far is durable (the ledger's group commit). */
  flush(): Promise<void> {
    return this.ledger.flush();
  }

  /** Stores a new journal row and resolves once it is durable (see `CallContext.journalDurably`). */
  journalDurably(entry: JournalEntry): Promise<void> {
    return this.ledger.beginDurably(entry);
  }

  /** Creates a new id for a call or turn. */
  newId(prefix: string): string {
    return newId(prefix);
  }
}
