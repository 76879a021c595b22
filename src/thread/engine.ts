/**
 * A thread's behaviour, kept out of the Durable Object class so that class only delegates:
 * events, the dispatch host, the durable queue, and the `ThreadState` host. Turns are run by
 * `TurnRunner` (runner.ts).
 * @module
 */
import { WeftError } from "../errors.js";
import type { EventFrame, EventPayloads, Message, ToolResult } from "../protocol.js";
import { BUILTIN_EVENT_TYPES } from "../protocol.js";
import { type AgentDefinition, type Registry, findAgent } from "../run/agent.js";
import type { NewTurnMessage } from "../run/messages.js";
import { ToolCatalog } from "../tools/catalog.js";
import { type CallOutcome, type CallRequest, type DispatchHost, dispatch } from "../tools/dispatch.js";
import type { CrashPoint } from "../tools/host.js";
import { DEFAULT_RESULT_CAP_BYTES } from "../tools/size.js";
import type { ExecutionState } from "../tools/thread-state.js";
import type { Effect } from "../tools/types.js";
import { type BoundCall, type StateHost, createThreadState } from "./state.js";
import type { ThreadStore } from "./store/index.js";
import { MAX_CONTENT_BYTES } from "./store/messages.js";
import type { ThreadMeta } from "./store/meta.js";

/** How the engine reaches the Durable Object around it. */
export interface EngineHost {
  readonly store: ThreadStore;
  readonly registry: Registry;
  readonly workerEnv: Readonly<Record<string, unknown>>;
  /** Sends a frame to every connected WebSocket. */
  broadcast(frame: EventFrame): void;
  /** Makes sure the thread wakes by itself (an alarm) to finish durable work. */
  wakeSoon(): void;
  /** Resolves when all writes so far are durable (`storage.sync()`). */
  flush(): Promise<void>;
}

/** Test seam of the crash matrix: called at each crash point of the pipeline. */
export type CrashHook = (point: CrashPoint, call: { callId: string; toolName: string; effect: Effect }) => void | Promise<void>;

const newId = (prefix: string) => `${prefix}_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;

/** A thread's running behaviour over its store. */
export class ThreadEngine implements StateHost {
  readonly agent: AgentDefinition;
  readonly catalog: ToolCatalog;
  /** Aborted by `stop`; replaced when a new turn starts. */
  abort = new AbortController();
  /** The execution state of the running turn, or null. */
  current: ExecutionState | null = null;
  /** Scratch shared by the calls of the running turn (the Standard Agents tools API's `context`); null at rest. */
  context: Record<string, unknown> | null = null;
  /** Set by crash-matrix tests only. */
  crashHook: CrashHook | null = null;
  private drainLock: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly host: EngineHost,
    readonly meta: ThreadMeta,
  ) {
    const agent = findAgent(host.registry, meta.agentId);
    if (!agent) throw new WeftError("agent_not_found", `no agent "${meta.agentId}"`);
    this.agent = agent;
    this.catalog = new ToolCatalog(toolsOf(host.registry, agent, meta.arguments));
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

  execution(): ExecutionState | null {
    return this.current;
  }

  executionContext(): Record<string, unknown> | null {
    return this.context;
  }

  /** Stores and broadcasts one event. */
  emit<K extends keyof EventPayloads>(type: K, data: EventPayloads[K]): void {
    this.host.broadcast(this.store.events.append(type, data));
  }

  emitCustom(event: string, data: unknown): void {
    if (typeof event !== "string" || !/^[a-z][a-z0-9_.:-]{0,63}$/i.test(event) || BUILTIN_EVENT_TYPES.has(event)) {
      throw new WeftError("invalid_request", `emit: "${String(event)}" is not a usable event name (built-in names are reserved)`);
    }
    this.host.broadcast(this.store.events.append(event, data));
  }

  appendMessage(message: NewTurnMessage): Message {
    return this.appendMessages([message])[0]!;
  }

  /** Appends messages in one transaction (with `also` inside it), then emits `message_created`. */
  appendMessages(messages: NewTurnMessage[], also?: () => void): Message[] {
    const stored = this.store.atomically(() => {
      const out = messages.map((m) => this.store.messages.append(m));
      also?.();
      return out;
    });
    for (const message of stored) this.emit("message_created", { message });
    return stored;
  }

  queueCall(parentCallId: string | undefined, toolName: string, args: Record<string, unknown>, turnId?: string): void {
    const callId = newId("call");
    this.store.calls.insert({
      callId,
      toolName,
      source: "queue",
      status: "queued",
      argsText: JSON.stringify(args ?? {}),
      effectKey: `${this.meta.threadId}:${callId}`,
      ...(turnId ? { turnId } : {}),
      ...(parentCallId ? { parentCallId } : {}),
    });
    this.host.wakeSoon();
  }

  async invokeCall(parentCallId: string | undefined, toolName: string, args: Record<string, unknown>, turnId?: string): Promise<ToolResult> {
    const outcome = await this.dispatchOne({
      callId: newId("call"),
      toolName,
      args: { value: args },
      source: "invoke",
      ...(turnId ? { turnId } : {}),
      ...(parentCallId ? { parentCallId } : {}),
    });
    return outcome.result;
  }

  /** The pipeline's view of this thread, bound to the current stop signal. */
  dispatchHost(): DispatchHost {
    const cap = Number(this.workerEnv.WEFT_RESULT_CAP_BYTES);
    return {
      branchId: this.meta.threadId,
      catalog: this.catalog,
      journal: this.store.calls,
      emit: (type, data) => this.emit(type, data),
      stateFor: (call: BoundCall) => createThreadState(this, call),
      signal: this.abort.signal,
      dryRun: this.meta.dryRun,
      ...(this.meta.asOf ? { asOf: this.meta.asOf } : {}),
      // Capped results become message rows, so the cap never exceeds a message's limit.
      resultCapBytes: Number.isInteger(cap) && cap > 0 ? Math.min(cap, MAX_CONTENT_BYTES / 2) : DEFAULT_RESULT_CAP_BYTES,
      files: {
        writeFile: (path, data, mimeType, size) => void this.store.files.write(path, data, mimeType, size),
        fileUrl: (path) => `/threads/${this.meta.threadId}/files/${encodeURI(path)}`,
      },
      flush: () => this.host.flush(),
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      ...(this.crashHook ? { checkpoint: this.crashHook } : {}),
    };
  }

  /** Runs one call through the pipeline, without draining the queue. */
  dispatchOne(request: CallRequest): Promise<CallOutcome> {
    return dispatch(this.dispatchHost(), request);
  }

  /** Runs one call, then every call it (or anything before it) queued, in queue order. */
  async dispatchWithQueue(request: CallRequest): Promise<{ outcome: CallOutcome; queued: CallOutcome[] }> {
    const outcome = await this.dispatchOne(request);
    return { outcome, queued: await this.drainQueue() };
  }

  /**
   * Runs queued calls one at a time in queue order; one that fails never blocks the next.
   * Serialised, so two drains never pick the same row.
   */
  drainQueue(): Promise<CallOutcome[]> {
    const run = this.drainLock.then(async () => {
      const done: CallOutcome[] = [];
      for (let next = this.store.calls.queued()[0]; next; next = this.store.calls.queued()[0]) {
        done.push(
          await this.dispatchOne({
            callId: next.callId,
            toolName: next.toolName,
            args: { text: next.argsText },
            source: "queue",
            ...(next.turnId ? { turnId: next.turnId } : {}),
          }),
        );
      }
      return done;
    });
    this.drainLock = run.catch(() => undefined);
    return run;
  }

  /** Re-runs, reconciles or parks every call a restart interrupted (outside any open step). */
  async recoverCalls(): Promise<CallOutcome[]> {
    const done: CallOutcome[] = [];
    for (const record of this.store.calls.unfinished()) {
      done.push(await this.dispatchOne({ callId: record.callId, toolName: record.toolName, args: { text: record.argsText }, source: record.source }));
    }
    return done;
  }

  /** Resolves once every write so far is durable. */
  flush(): Promise<void> {
    return this.host.flush();
  }

  /** Creates a new id for a call or turn. */
  newId(prefix: string): string {
    return newId(prefix);
  }
}

/** The agent's tools: the registry's (all, or the names it lists) plus any built from arguments. */
function toolsOf(registry: Registry, agent: AgentDefinition, args: Record<string, unknown>) {
  const base = agent.tools
    ? Object.fromEntries(agent.tools.filter((n) => registry.tools[n]).map((n) => [n, registry.tools[n]!]))
    : { ...registry.tools };
  return agent.toolsFromArguments ? { ...base, ...agent.toolsFromArguments(args) } : base;
}
