/**
 * The call runner: every way a call moves, as transitions over the call journal. A call is
 * requested (by a model step, a direct call, `invokeTool`, an MCP call: `source` says which), or
 * queued (`queueTool`) and drained; it may wait for a person, who approves, denies or settles it;
 * a restart leaves it to recover; a suspended call resumes; a stopped run ends it. Each transition
 * holds the call's one lock (the world's `locks`), so work on one call id never overlaps, and enters the pipeline
 * (pipeline.ts) at the stage it needs. The turn reads where a call stands with {@link CallRunner.outcomeOf}.
 * @module
 */
import { isWeftError } from "../errors.js";
import { orderedId } from "../ids.js";
import { type CallRecord, type EventPayloads, type ToolCallRequest, type ToolResult, isFinalStatus, waitsForPersonStatus } from "../protocol.js";
import type { ToolCatalog } from "../tools/catalog.js";
import { Deadlines } from "./attempt.js";
import { type CallExecution, type CallOutcome, type CallRequest, effectKeyOf } from "./call.js";
import { type CallContext, type CallWorld, bindContext } from "./context.js";
import { DecisionWaiters } from "./decisions.js";
import { type Settlement, approveCall, denyCall, settleCall } from "./decide.js";
import { abortOpenCall, recordProvidedCall } from "./closing.js";
import { requestOf } from "./input.js";
import { enterRequest } from "./pipeline.js";
import { outcomeOf } from "./record.js";
import { approvedWaiting, heldByPerson, recoverCall } from "./recover.js";
import { resumeSuspended } from "./resume.js";
import { turnWaits } from "./suspend.js";
import { openCallsOf, stopWaiting } from "./stop.js";
import { log } from "../log.js";

/** The calls of one thread, and every way they move. */
export class CallRunner {
  /** The deadlines of every attempt of `execute` running on this thread, on one timer. */
  readonly deadlines = new Deadlines();
  private drainLock: Promise<unknown> = Promise.resolve();
  /** Parents waiting in `invokeTool` for a person's decision on a nested call. */
  private readonly decisions = new DecisionWaiters();

  constructor(private readonly world: CallWorld) {}

  /**
   * The pipeline's context for work of `execution` (null: outside any run) with `catalog`, its
   * own tools by default; `onFinished` sees each `tool_call_finished` emitted through it.
   */
  contextOf(execution: CallExecution | null, catalog?: ToolCatalog, onFinished?: (data: EventPayloads["tool_call_finished"]) => void): CallContext {
    return bindContext(this.world, this.deadlines, execution, catalog ?? this.world.catalogFor(execution), onFinished);
  }

  /**
   * Moves one call of `execution` (null: outside any run) a step, by where its journal row stands,
   * without draining the queue: a new or queued call enters the pipeline; a started one (a restart
   * cut it) recovers; one waiting for a person while its run is stopped takes the stop; a
   * suspended one resumes; a final one answers its result. Then the `tool_call_finished` hook of
   * each call it finished runs: inside a run a hook that throws fails the run; at rest there is no
   * run to fail, so the error is logged and the call's recorded result stands.
   * `catalog`: where the call's name is looked up (default: the execution's own tools).
   */
  request(execution: CallExecution | null, request: CallRequest, catalog?: ToolCatalog): Promise<CallOutcome> {
    return this.world.locks.hold(request.callId, async () => {
      // A direct call's own catalog may offer remote MCP tools: their lists are read first.
      if (execution === null && catalog === undefined && this.world.remoteAtRest) await this.world.prepareTools?.(null);
      // Without a `tool_call_finished` hook there is nothing to collect (the usual case).
      const finished: EventPayloads["tool_call_finished"][] | null = this.world.hasToolHook("tool_call_finished") ? [] : null;
      const ctx = this.contextOf(execution, catalog, finished ? (data) => finished.push(data) : undefined);
      try {
        const outcome = await this.move(ctx, request);
        if (finished) for (const data of finished) await this.world.toolHook(execution, "tool_call_finished", data);
        return outcome;
      } catch (e) {
        if (execution !== null || !isWeftError(e) || e.code !== "hook_failed") throw e;
        log("error", `weft: ${e.message} (call ${request.callId}, outside any turn)`);
        // The call has its row now (however fresh its id was): its recorded result is found.
        return this.move(ctx, { ...request, fresh: false });
      }
    });
  }

  /** The transition a request takes from where the call stands (see {@link request}). */
  private move(ctx: CallContext, request: CallRequest): Promise<CallOutcome> | CallOutcome {
    const existing = request.fresh ? undefined : ctx.journal.get(request.callId);
    if (!existing || existing.status === "queued") return enterRequest(ctx, request, existing);
    if (existing.status === "started") return recoverCall(ctx, existing);
    // Its run was stopped while it waited: stop is a transition of the waiting call too.
    if (ctx.signal?.aborted && waitsForPersonStatus(existing.status)) return stopWaiting(ctx, existing);
    return existing.status === "parked" ? resumeSuspended(ctx, existing) : outcomeOf(ctx, existing);
  }

  /**
   * Where call `callId` stands now, read from the journal once no other work holds it (a decision
   * under way finishes first). A call of a stopped run that still waits for a person takes its
   * stop transition first, so what the turn reads is final.
   */
  outcomeOf(execution: CallExecution | null, callId: string): Promise<CallOutcome> {
    return this.world.locks.hold(callId, async () => {
      const ctx = this.contextOf(execution);
      const record = ctx.journal.get(callId)!;
      if (ctx.signal?.aborted && waitsForPersonStatus(record.status)) return stopWaiting(ctx, record);
      return outcomeOf(ctx, record);
    });
  }

  /**
   * Whether turn `turnId` still waits for a person: a call of its open step `pending`, or one
   * queued by them, awaits approval or settlement, or is suspended while something inside it does.
   */
  async turnWaits(turnId: string, pending: readonly { id: string }[]): Promise<boolean> {
    // Remote tools are listed first: a remote call waiting for authorization is told apart by its tool.
    await this.world.prepareTools?.("everywhere");
    return turnWaits(this.world.journal, this.world.catalogFor("everywhere"), turnId, pending);
  }

  /**
   * Requests one call, then runs every call it (or anything before it) queued, in queue order,
   * under the same execution. `queued` also holds the calls this call queued in an earlier run (a
   * resumed step), so one that waited for a person joins the history once decided.
   */
  async requestWithQueue(execution: CallExecution | null, request: CallRequest): Promise<{ outcome: CallOutcome; queued: CallOutcome[] }> {
    const outcome = await this.request(execution, request);
    const { journal } = this.world;
    // Nothing queued (the usual case): no drain to wait for, no lock taken.
    const drained = journal.mayHaveQueued() ? await this.drain(execution) : [];
    const children = journal.queuedBy(request.callId);
    if (children.length === 0) return { outcome, queued: drained };
    const seen = new Set(drained.map((o) => o.callId));
    const earlier = children.filter((c) => !seen.has(c.callId) && c.status !== "queued");
    if (earlier.length === 0) return { outcome, queued: drained };
    const ctx = this.contextOf(execution);
    return { outcome, queued: [...drained, ...earlier.map((c) => outcomeOf(ctx, c))] };
  }

  /** Durably queues a call (`queueTool`) after the current one; `id` (when given) is kept if already queued. */
  queue(parentCallId: string | undefined, toolName: string, args: Record<string, unknown>, turnId?: string, id?: string): void {
    const callId = id ?? orderedId("call", 16);
    const { journal } = this.world;
    if (journal.get(callId)) return; // queued by an earlier run of the same parent
    journal.insert({
      callId,
      toolName,
      source: "queue",
      status: "queued",
      argsText: JSON.stringify(args ?? {}),
      effectKey: effectKeyOf(this.world.settings.branchId, callId),
      ...(turnId ? { turnId } : {}),
      ...(parentCallId ? { parentCallId } : {}),
    });
    this.world.wakeSoon();
  }

  /**
   * Requests a call now (`invokeTool`) under the caller's execution and answers its result. A
   * nested call that waits for a person holds its parent: this resolves with the decision. The
   * call is durable; a restart meanwhile recovers the parent by its effect policy, and a parent
   * run again reaches the same nested call by its derived id. Outside any run (a direct call)
   * nobody could wait: the nested call keeps waiting on its own.
   */
  async invoke(
    parentCallId: string | undefined,
    toolName: string,
    args: Record<string, unknown>,
    execution: CallExecution | null,
    turnId?: string,
    id?: string,
  ): Promise<ToolResult> {
    const outcome = await this.request(execution, {
      callId: id ?? orderedId("call", 16),
      toolName,
      args: { value: args },
      source: "invoke",
      ...(turnId ? { turnId } : {}),
      ...(parentCallId ? { parentCallId } : {}),
    });
    if (outcome.final) return outcome.result;
    if (execution === null) {
      return { status: "error", error: `call ${outcome.callId} (${toolName}) waits for a person (${outcome.status}); it runs once decided, and this call does not wait for it` };
    }
    if (turnId) this.world.emit("turn_waiting", { turnId, callIds: [outcome.callId] });
    const ctx = this.contextOf(execution);
    return this.decisions.until(outcome, toolName, execution.signal, (callId) => outcomeOf(ctx, this.world.journal.get(callId)!));
  }

  /**
   * Runs queued calls one at a time in queue order; one that fails never blocks the next. They run
   * under the execution that drains them (a turn's, or none at rest). Serialised, so two drains
   * never pick the same row.
   */
  drain(execution: CallExecution | null): Promise<CallOutcome[]> {
    const { journal } = this.world;
    const run = this.drainLock.then(async () => {
      const done: CallOutcome[] = [];
      for (let next = journal.queued()[0]; next; next = journal.queued()[0]) {
        await this.world.crashHook?.("queue_drain", { callId: next.callId, toolName: next.toolName });
        done.push(
          await this.request(execution, {
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

  /**
   * A person approves a waiting call (it runs once). `check` runs once the call's lock is held
   * (the thread may be being removed meanwhile). Whatever waits on the decision then wakes.
   */
  approve(callId: string, approvedBy: string, argsHash?: string, check?: () => void): Promise<CallOutcome> {
    return this.decide(callId, (ctx) => approveCall(ctx, callId, approvedBy, argsHash), check);
  }

  /** A person denies a waiting call; the model sees the denial. See {@link approve} for `check`. */
  deny(callId: string, deniedBy: string, reason?: string, argsHash?: string, check?: () => void): Promise<CallOutcome> {
    return this.decide(callId, (ctx) => denyCall(ctx, callId, deniedBy, reason, argsHash), check);
  }

  /** A person settles a parked call, or has it run again. See {@link approve} for `check`. */
  settle(callId: string, settlement: Settlement, check?: () => void): Promise<CallOutcome> {
    return this.decide(callId, (ctx) => settleCall(ctx, callId, settlement), check);
  }

  /**
   * A person's decision, outside any run and knowing every name of the thread (the call may wait
   * on side b or inside a prompt), holding the call's lock. The `tool_call_finished` hook of the
   * result it records runs as for a call at rest: a hook that throws is logged, the result stands.
   */
  private async decide(callId: string, decision: (ctx: CallContext) => CallOutcome | Promise<CallOutcome>, check?: () => void): Promise<CallOutcome> {
    const outcome = await this.world.locks.hold(callId, async () => {
      check?.();
      // The lock first, so a read asked after the decision waits for it; then the remote lists.
      if (this.world.prepareTools) await this.world.prepareTools("everywhere");
      const finished: EventPayloads["tool_call_finished"][] = [];
      const decided = await decision(this.contextOf(null, this.world.catalogFor("everywhere"), this.world.hasToolHook("tool_call_finished") ? (data) => finished.push(data) : undefined));
      for (const data of finished) {
        try {
          await this.world.toolHook(null, "tool_call_finished", data);
        } catch (e) {
          if (!isWeftError(e) || e.code !== "hook_failed") throw e;
          log("error", `weft: ${e.message} (call ${data.callId}, decided outside any turn)`);
        }
      }
      return decided;
    });
    // A parent waiting inside invokeTool for this call goes on with the decision.
    this.decisions.notify(callId);
    return outcome;
  }

  /** Whether a call is open: started without its result, or queued and not run yet. */
  hasOpenCalls(): boolean {
    return this.world.journal.unfinished().length > 0 || this.world.journal.queued().length > 0;
  }

  /** Whether any unfinished call waits for a person (an approval, or a parked outcome to settle). */
  waitsForPerson(): boolean {
    return this.world.journal.waitForPerson();
  }

  /** Whether a direct call is parked: a person's settle lets it go on. */
  parkedDirect(): boolean {
    return [...this.world.journal.list(1000, 0, "parked")].some((c) => c.source === "direct");
  }

  /** Whether a restart left calls to recover: started without a result, or approved but not begun. */
  recoverable(): boolean {
    return this.world.journal.unfinished().length > 0 || approvedWaiting(this.world.journal).length > 0;
  }

  /**
   * Recovers, at rest (outside any open step), every call a restart interrupted; answers the
   * outcome of each, in the order handled. Approvals durable before their call began run now;
   * calls started without a result are re-run, reconciled or parked by their effect policy
   * (recover.ts). A call held by a live turn's nested call that waits for a person is left to that
   * turn, which resumes it under its execution, where it can wait for the person again.
   */
  async recover(): Promise<CallOutcome[]> {
    const done: CallOutcome[] = [];
    // A restarted thread has no remote MCP tool lists yet: its calls to them are found once listed.
    await this.world.prepareTools?.("everywhere");
    const everywhere = this.world.catalogFor("everywhere");
    for (const record of approvedWaiting(this.world.journal)) {
      // The call may wait on side b or inside a prompt: its tool is looked up everywhere, as a person's decision does.
      const ctx = this.contextOf(null, everywhere);
      done.push(
        await this.world.locks.hold(record.callId, async () => {
          // Decided meanwhile: its outcome stands.
          const now = ctx.journal.get(record.callId)!;
          return now.status === "awaiting_approval" ? approveCall(ctx, record.callId, record.approvedBy!) : outcomeOf(ctx, now);
        }),
      );
      this.decisions.notify(record.callId);
    }
    for (const record of this.world.journal.unfinished()) {
      // A call cut while it waited inside invokeTool is recovered by its turn (`heldByPerson`).
      if (heldByPerson(this.world, record)) continue;
      const request = { callId: record.callId, toolName: record.toolName, args: { text: record.argsText }, source: record.source };
      // A call may have run inside a prompt or on side b: recovery looks its name up everywhere.
      done.push(await this.request(null, request, everywhere));
    }
    return done;
  }

  /**
   * Direct calls suspended on work inside them (a prompt call whose nested call waited for a
   * person) go on at rest once nothing inside waits; calls of a turn go on with their turn.
   */
  async resumeDirect(): Promise<void> {
    for (const record of [...this.world.journal.list(1000, 0, "parked")]) {
      if (record.source === "direct") await this.request(null, requestOf(record), this.world.catalogFor("everywhere"));
    }
  }

  /**
   * A stopped run leaves no call waiting: each of its open calls (queued, awaiting approval,
   * parked, at any depth: `openCallsOf`) takes the stop transition (stop.ts).
   */
  async stop(execution: CallExecution): Promise<void> {
    for (const record of openCallsOf(this.world.journal, execution.flowId)) {
      await this.request(execution, requestOf(record), this.world.catalogFor("everywhere"));
    }
  }

  /**
   * A failed turn leaves no call without a result: every call of its open step `calls` gets a
   * final result (an error naming the failure, unless it had one); answers their records, in order.
   */
  abortOpen(turnId: string, calls: readonly ToolCallRequest[], error: string): CallRecord[] {
    const ctx = this.contextOf(null);
    return calls.map((call) => abortOpenCall(ctx, turnId, call, error));
  }

  /** The calls `callIds` queued (`queueTool`) that ran to a final outcome, in queue order: a closed step's history holds them too. */
  queuedDone(callIds: readonly string[]): CallOutcome[] {
    const ctx = this.contextOf(null);
    return callIds.flatMap((id) => this.world.journal.queuedBy(id).filter((c) => isFinalStatus(c.status)).map((c) => outcomeOf(ctx, c)));
  }

  /**
   * Records the calls the provider ran itself in one step of turn `turnId` (closing.ts), each
   * with its `tool_call_finished` hook.
   * @throws WeftError `hook_failed` when the hook throws (the record stands).
   */
  async recordProvided(execution: CallExecution | null, turnId: string, calls: readonly ToolCallRequest[]): Promise<void> {
    for (const call of calls) {
      const finished: EventPayloads["tool_call_finished"][] = [];
      // Recorded through the one module that writes call results, like any call.
      if (!recordProvidedCall(this.contextOf(execution, undefined, (data) => finished.push(data)), turnId, call)) continue;
      for (const data of finished) await this.world.toolHook(execution, "tool_call_finished", data);
    }
  }
}

/** How a person settles a parked call (decide.ts). */
export type { Settlement } from "./decide.js";
