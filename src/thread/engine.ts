/**
 * A thread's behaviour, kept out of the Durable Object class so that class only delegates:
 * events, dispatch, the durable queue, and the `ThreadState` host. It holds nothing about a
 * running execution: every dispatch names the execution it belongs to. Turns are run by
 * `TurnRunner` (runner.ts).
 * @module
 */
import { byteLength, fitsBytes } from "../bytes.js";
import { WeftError, isWeftError } from "../errors.js";
import { orderedId } from "../ids.js";
import type { EventFrame, EventPayloads, Message, ToolResult } from "../protocol.js";
import { BUILTIN_EVENT_TYPES } from "../protocol.js";
import { type AgentDefinition, type EnvDefault, type Registry, type ResolvedSide, findAgent, findPrompt, sidesOf } from "../run/agent.js";
import { systemText } from "../run/prompt.js";
import type { NewTurnMessage } from "../run/messages.js";
import { Deadlines } from "../calls/attempt.js";
import { ToolCatalog } from "../tools/catalog.js";
import { type CallOutcome, type CallRequest, dispatch, outcomeOf } from "../calls/dispatch.js";
import type { CallExecution, CrashPoint } from "../calls/host.js";
import type { JournalEntry } from "../tools/journal.js";
import type { Effect } from "../tools/types.js";
import type { ExecutionState } from "../tools/thread-state.js";
import { Callables } from "./callables.js";
import { DecisionWaiters } from "./decisions.js";
import { logFailedCall } from "./call-log.js";
import { NO_USER_ENV, type UserEnvSource } from "./env.js";
import { createDispatchHost } from "./dispatch-host.js";
import { createMessages, hasHook, toolHook } from "./hooks.js";
import { hasRecoverableCalls, recoverCalls } from "./rest-recovery.js";
import type { StateHost } from "./state.js";
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
  /** Stores a new journal row and resolves once it is durable (see `DispatchHost.journalDurably`). */
  journalDurably(entry: JournalEntry): Promise<void>;
}

/** Bytes of JSON one custom event may carry (`state.emit`); a row must stay under 2 MB. */
export const MAX_EVENT_BYTES = 1024 * 1024;

/** Test seam of the crash matrix: called at each crash point of the pipeline. */
export type CrashHook = (point: CrashPoint, call: { callId: string; toolName: string; effect?: Effect }) => void | Promise<void>;

/** A call, turn or flow id: time-ordered (see `orderedId`), 16 random hex digits as before. */
const newId = (prefix: string) => orderedId(prefix, 16);

/** A thread's running behaviour over its store. */
export class ThreadEngine implements StateHost {
  readonly agent: AgentDefinition;
  /** The agent's sides, side a first (one entry for a one-sided agent). */
  readonly sides: ResolvedSide[];
  /** What a model may call in each place of the thread (sides, prompts). */
  readonly callables: Callables;
  /** Set by crash-matrix tests only. */
  crashHook: CrashHook | null = null;
  /** The deadlines of every attempt of `execute` running on this thread, on one timer. */
  readonly deadlines = new Deadlines();
  private drainLock: Promise<unknown> = Promise.resolve();
  /** Per call id: the tail of the work holding it (dispatch, recovery, a person's decision). */
  private readonly callLocks = new Map<string, Promise<unknown>>();
  /** Parents waiting in `invokeTool` for a person's decision on a nested call. */
  private readonly decisions = new DecisionWaiters();

  constructor(
    private readonly host: EngineHost,
    readonly meta: ThreadMeta,
  ) {
    const agent = findAgent(host.registry, meta.agentId);
    if (!agent) throw new WeftError("agent_not_found", `no agent "${meta.agentId}"`);
    this.agent = agent;
    this.sides = sidesOf(host.registry, agent);
    this.callables = new Callables(this);
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

  /** Stores messages through the create-message hooks (see thread/hooks.ts `createMessages`). */
  createMessages(execution: CallExecution | null, messages: NewTurnMessage[], also?: () => void): Promise<Message[]> {
    return createMessages(this, execution, messages, also);
  }

  /** The value with every secret of the thread replaced. */
  redact<T>(value: T): T {
    return this.host.redact(value);
  }

  /** Stores and broadcasts one event. */
  emit<K extends keyof EventPayloads>(type: K, data: EventPayloads[K]): void {
    const clean = this.host.redactEvent(type, data);
    if (clean !== null) this.host.broadcast(this.store.events.append(type, clean));
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

  queueCall(parentCallId: string | undefined, toolName: string, args: Record<string, unknown>, turnId?: string, id?: string): void {
    const callId = id ?? newId("call");
    if (this.store.calls.get(callId)) return; // queued by an earlier run of the same parent
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

  async invokeCall(
    parentCallId: string | undefined,
    toolName: string,
    args: Record<string, unknown>,
    execution: CallExecution | null,
    turnId?: string,
    id?: string,
  ): Promise<ToolResult> {
    const outcome = await this.dispatchOne(execution, {
      callId: id ?? newId("call"),
      toolName,
      args: { value: args },
      source: "invoke",
      ...(turnId ? { turnId } : {}),
      ...(parentCallId ? { parentCallId } : {}),
    });
    // A nested call that waits for a person holds its parent: invokeTool resolves with the
    // decision. The call is durable; a restart meanwhile recovers the parent by its effect policy,
    // and a parent run again reaches the same nested call by its derived id.
    // Outside any run (a direct call) nobody could wait: the nested call keeps waiting on its own.
    if (outcome.final) return outcome.result;
    if (execution === null) {
      return { status: "error", error: `call ${outcome.callId} (${toolName}) waits for a person (${outcome.status}); it runs once decided, and this call does not wait for it` };
    }
    if (turnId) this.emit("turn_waiting", { turnId, callIds: [outcome.callId] });
    const host = createDispatchHost(this, execution);
    return this.decisions.until(outcome, toolName, execution.signal, (callId) => outcomeOf(host, this.store.calls.get(callId)!));
  }

  /** Wakes whatever waits on `callId`'s decision (a parent inside `invokeTool`). */
  notifyDecided(callId: string): void {
    this.decisions.notify(callId);
  }

  /**
   * Runs one call of `execution` (null: outside any run) through the pipeline, without draining
   * the queue, then the `tool_call_finished` hook of each call it finished. Inside a run a hook
   * that throws fails the run; at rest there is no run to fail, so the error is logged and the
   * call's recorded result stands. Work on one call id never overlaps (see `withCall`).
   */
  dispatchOne(execution: CallExecution | null, request: CallRequest, catalog?: ToolCatalog): Promise<CallOutcome> {
    return this.withCall(request.callId, async () => {
      // Without a `tool_call_finished` hook there is nothing to collect (the usual case).
      const finished: EventPayloads["tool_call_finished"][] | null = hasHook(this, "tool_call_finished") ? [] : null;
      const host = createDispatchHost(this, execution, catalog, finished ? (data) => finished.push(data) : undefined);
      try {
        const outcome = await dispatch(host, request);
        if (finished) for (const data of finished) await toolHook(this, execution, "tool_call_finished", data);
        return outcome;
      } catch (e) {
        if (execution !== null || !isWeftError(e) || e.code !== "hook_failed") throw e;
        console.error(`weft: ${e.message} (call ${request.callId}, outside any turn)`);
        // The call has its row now (however fresh its id was): the pipeline finds its recorded result.
        return dispatch(host, { ...request, fresh: false });
      }
    });
  }

  /**
   * Runs `work` holding call `callId`: work on one call id never overlaps, so however many
   * requests, alarms and recoveries arrive together, a call runs (or is recovered) once and the
   * later ones find its result.
   */
  withCall<T>(callId: string, work: () => Promise<T>): Promise<T> {
    const before = this.callLocks.get(callId);
    // Free (the usual case): the work starts now; it holds the id from its first await on. The
    // next holder waits for this work to settle either way (a failure frees the id too).
    const run = before ? before.then(work, work) : work();
    this.callLocks.set(callId, run);
    // Inline arrows: a named one (`const release = () => ...`) costs a defineProperty per call in
    // a bundle that keeps names (wrangler's default).
    run.then(
      () => this.release(callId, run),
      () => this.release(callId, run),
    );
    return run;
  }

  /** Frees `callId` unless later work holds it now. */
  private release(callId: string, run: Promise<unknown>): void {
    if (this.callLocks.get(callId) === run) this.callLocks.delete(callId);
  }

  /** Whether the thread has any tool-call hook (the dispatch host skips the work otherwise). */
  hasToolHooks(): boolean {
    return hasHook(this, "tool_call_started");
  }

  /**
   * Runs one call, then every call it (or anything before it) queued, in queue order, under the
   * same execution. `queued` also holds the calls this call queued in an earlier run (a resumed
   * step), so one that waited for a person joins the history once decided.
   */
  async dispatchWithQueue(execution: CallExecution | null, request: CallRequest): Promise<{ outcome: CallOutcome; queued: CallOutcome[] }> {
    const outcome = await this.dispatchOne(execution, request);
    // Nothing queued (the usual case): no drain to wait for, no lock taken.
    const drained = this.store.calls.mayHaveQueued() ? await this.drainQueue(execution) : [];
    const children = this.store.calls.queuedBy(request.callId);
    if (children.length === 0) return { outcome, queued: drained };
    const seen = new Set(drained.map((o) => o.callId));
    const earlier = children.filter((c) => !seen.has(c.callId) && c.status !== "queued");
    if (earlier.length === 0) return { outcome, queued: drained };
    const host = createDispatchHost(this, execution);
    return { outcome, queued: [...drained, ...earlier.map((c) => outcomeOf(host, c))] };
  }

  /**
   * Runs queued calls one at a time in queue order; one that fails never blocks the next. They run
   * under the execution that drains them (a turn's, or none at rest). Serialised, so two drains
   * never pick the same row.
   */
  drainQueue(execution: CallExecution | null): Promise<CallOutcome[]> {
    const run = this.drainLock.then(async () => {
      const done: CallOutcome[] = [];
      for (let next = this.store.calls.queued()[0]; next; next = this.store.calls.queued()[0]) {
        await this.crashHook?.("queue_drain", { callId: next.callId, toolName: next.toolName });
        done.push(
          await this.dispatchOne(execution, {
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

  /** Whether a restart left calls to recover: started without a result, or approved but not begun (src/thread/rest-recovery.ts). */
  hasRecoverableCalls(): boolean {
    return hasRecoverableCalls(this);
  }

  /** Re-runs, reconciles or parks every call a restart interrupted (outside any open step), at rest. */
  recoverCalls(): Promise<CallOutcome[]> {
    return recoverCalls(this);
  }

  /** Resolves once every write so far is durable. */
  flush(): Promise<void> {
    return this.host.flush();
  }

  /** Stores a new journal row and resolves once it is durable (see `DispatchHost.journalDurably`). */
  journalDurably(entry: JournalEntry): Promise<void> {
    return this.host.journalDurably(entry);
  }

  /** Creates a new id for a call or turn. */
  newId(prefix: string): string {
    return newId(prefix);
  }
}
