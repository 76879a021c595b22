/**
 * A thread's behaviour, kept out of the Durable Object class so that class only delegates: create,
 * post messages, run turns, dispatch calls and drain the durable queue, emit events.
 * @module
 */
import { WeftError } from "../errors.js";
import type { CallSource, EventFrame, EventPayloads, Message, ToolResult } from "../protocol.js";
import { BUILTIN_EVENT_TYPES } from "../protocol.js";
import { createScriptedModel } from "../models/scripted.js";
import type { StoredStep } from "../models/scripted.js";
import { type AgentDefinition, type Registry, findAgent } from "../run/agent.js";
import type { NewTurnMessage } from "../run/messages.js";
import { DEFAULT_MAX_STEPS, runTurn } from "../run/turn.js";
import { ToolCatalog } from "../tools/catalog.js";
import { type CallOutcome, type CallRequest, dispatch } from "../tools/dispatch.js";
import type { ExecutionState } from "../tools/thread-state.js";
import { createExecution } from "./execution.js";
import { type BoundCall, type StateHost, createThreadState } from "./state.js";
import type { ThreadStore } from "./store/index.js";
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
}

/** A thread's running behaviour over its store. */
export class ThreadEngine implements StateHost {
  readonly agent: AgentDefinition;
  readonly catalog: ToolCatalog;
  private runner: Promise<void> | null = null;
  private drainLock: Promise<unknown> = Promise.resolve();
  private abort = new AbortController();
  private current: ExecutionState | null = null;

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

  /** True while a turn runs. */
  get busy(): boolean {
    return this.runner !== null;
  }

  execution(): ExecutionState | null {
    return this.current;
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
    const stored = this.store.atomically(() => this.store.messages.append(message));
    this.emit("message_created", { message: stored });
    return stored;
  }

  queueCall(parentCallId: string | undefined, toolName: string, args: Record<string, unknown>, turnId?: string): void {
    const callId = `call_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
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
    const callId = `call_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
    const outcome = await this.dispatchOne({
      callId,
      toolName,
      args: { value: args },
      source: "invoke",
      ...(turnId ? { turnId } : {}),
      ...(parentCallId ? { parentCallId } : {}),
    });
    return outcome.result;
  }

  /** Runs one call through the pipeline, without draining the queue. */
  dispatchOne(request: CallRequest): Promise<CallOutcome> {
    return dispatch(
      {
        branchId: this.meta.threadId,
        catalog: this.catalog,
        journal: this.store.calls,
        emit: (type, data) => this.emit(type, data),
        stateFor: (call: BoundCall) => createThreadState(this, call),
        signal: this.abort.signal,
      },
      request,
    );
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
            source: "queue" satisfies CallSource,
            ...(next.turnId ? { turnId: next.turnId } : {}),
          }),
        );
      }
      return done;
    });
    this.drainLock = run.catch(() => undefined);
    return run;
  }

  /**
   * Accepts a user message. With no turn running it joins the history now and a turn starts;
   * otherwise it waits in the inbox for the next turn (no orphan rows, no duplicate calls).
   */
  postMessage(input: { content: string; role?: "user" | "system"; metadata?: Record<string, unknown>; script?: StoredStep[] }):
    { queued: boolean; message?: Message } {
    this.store.atomically(() => {
      if (input.script && input.script.length > 0) this.store.turns.addScript(input.script);
      this.store.turns.enqueue({ role: input.role ?? "user", content: input.content, ...(input.metadata ? { metadata: input.metadata } : {}) });
    });
    if (this.runner) return { queued: true };
    const [message] = this.admitInbox();
    this.runner = this.runLoop().finally(() => {
      this.runner = null;
    });
    return message ? { queued: false, message } : { queued: false };
  }

  /** Resumes durable work after a restart: queued calls and waiting messages. */
  async resume(): Promise<void> {
    const stale = this.store.turns.latest();
    if (stale?.status === "running" && !this.runner) {
      this.store.turns.end(stale.turnId, "failed", "interrupted by a restart");
      this.emit("turn_finished", { turnId: stale.turnId, status: "failed", steps: stale.steps, error: "interrupted by a restart" });
    }
    await this.drainQueue();
    if (!this.runner && this.store.turns.inboxSize() > 0) {
      this.admitInbox();
      this.runner = this.runLoop().finally(() => {
        this.runner = null;
      });
    }
    await this.idle();
  }

  /** Resolves when no turn is running. */
  async idle(): Promise<void> {
    while (this.runner) await this.runner;
  }

  /** Stops the running turn: the abort signal fires and no further model step starts. */
  stop(): boolean {
    if (!this.runner) return false;
    this.abort.abort(new WeftError("session_busy", "thread stopped"));
    return true;
  }

  private admitInbox(): Message[] {
    const pending = this.store.turns.takeInbox();
    return pending.map((p) =>
      this.appendMessage({ role: p.role, content: p.content, ...(p.metadata ? { metadata: p.metadata } : {}) }),
    );
  }

  private async runLoop(): Promise<void> {
    for (;;) {
      await this.runOneTurn();
      if (this.store.turns.inboxSize() === 0) return;
      this.admitInbox();
    }
  }

  private async runOneTurn(): Promise<void> {
    const turnId = `turn_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
    this.abort = new AbortController();
    this.store.turns.begin(turnId);
    this.emit("turn_started", { turnId });
    const execution = createExecution(turnId, this.abort, () => this.store.messages.all());
    this.current = execution.state;
    const end = await runTurn({
      threadId: this.meta.threadId,
      turnId,
      model: createScriptedModel(() => this.store.turns.nextScriptStep()),
      ...(this.agent.system !== undefined ? { system: this.agent.system } : {}),
      maxSteps: this.agent.maxSteps ?? DEFAULT_MAX_STEPS,
      signal: this.abort.signal,
      tools: () => this.catalog.list().map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema })),
      history: () => this.store.messages.all(),
      append: (message) => this.appendMessage(message),
      dispatch: (request) => this.dispatchWithQueue(request),
      emit: (type, data) => this.emit(type, data),
      onStep: (steps) => {
        execution.setSteps(steps);
        this.store.turns.step(turnId, steps);
      },
    });
    this.current = null;
    this.store.turns.end(turnId, end.status, end.error);
    this.emit("turn_finished", { turnId, status: end.status, steps: end.steps, ...(end.error ? { error: end.error } : {}) });
  }
}

/** The agent's tools: the registry's (all, or the names it lists) plus any built from arguments. */
function toolsOf(registry: Registry, agent: AgentDefinition, args: Record<string, unknown>) {
  const base = agent.tools
    ? Object.fromEntries(agent.tools.filter((n) => registry.tools[n]).map((n) => [n, registry.tools[n]!]))
    : { ...registry.tools };
  return agent.toolsFromArguments ? { ...base, ...agent.toolsFromArguments(args) } : base;
}
