/**
 * Turns over time: the inbox, starting and resuming turns, waiting for people, stops, and the
 * watchdog alarm that resumes a turn cut by a restart with no client request needed.
 * @module
 */
import { WATCHDOG_MS } from "../config.js";
import type { Message, ToolCallRequest } from "../protocol.js";
import { errorMessage } from "../errors.js";
import type { StoredStep } from "../models/scripted.js";
import { Execution } from "../run/execution.js";
import { type TurnEnd, runTurn } from "../run/turn.js";
import type { CallOutcome } from "../tools/dispatch.js";
import { resultText } from "../tools/result.js";
import { type Settlement, approveCall, denyCall, settleCall } from "../tools/decide.js";
import { closeOpenStep } from "./close-step.js";
import { createDispatchHost } from "./dispatch-host.js";
import type { ThreadEngine } from "./engine.js";
import type { TurnRecord } from "./store/turns.js";
import { checkContentSize } from "./store/messages.js";
import { conversationWindow } from "./history.js";
import { fallbacksFor, modelFor } from "./model-choice.js";
import { createTurnHost } from "./turn-host.js";

export { uniqueCallIds } from "./turn-host.js";

/** Runs a thread's turns. */
export class TurnRunner {
  private running: Promise<void> | null = null;
  /** The execution of the turn running now, so `stop` can reach it; null between turns. */
  private execution: Execution | null = null;

  constructor(
    private readonly engine: ThreadEngine,
    private readonly armAlarm: (delayMs: number) => void,
    /** How long the watchdog alarm waits; `WEFT_WATCHDOG_MS` overrides {@link WATCHDOG_MS}. */
    private readonly watchdogMs: number = WATCHDOG_MS,
  ) {}

  /** True while a turn runs in this instance. */
  get active(): boolean {
    return this.running !== null;
  }

  /**
   * True while a turn runs, waits for a person, or was cut by a restart and not yet resumed (its
   * stored status is still running): new messages queue, writes get session_busy.
   */
  get busy(): boolean {
    const status = this.engine.store.turns.latestStatus();
    return this.running !== null || status === "waiting" || status === "running";
  }

  /**
   * Accepts a message. When the thread is free it joins the history now and a turn starts;
   * otherwise it waits in the inbox for the next turn (no orphan rows, no duplicate calls).
   */
  postMessage(input: { content: string; role?: "user" | "system"; script?: StoredStep[] }): { queued: boolean; message?: Message } {
    const { store } = this.engine;
    checkContentSize(input.content, ["content"]);
    store.atomically(() => {
      if (input.script && input.script.length > 0) store.script.add(input.script);
      store.turns.enqueue({ role: input.role ?? "user", content: input.content });
    });
    if (this.busy) {
      // A turn cut by a restart resumes now, not at the next watchdog; the message waits behind it.
      if (!this.running) void this.resume();
      return { queued: true };
    }
    const [message] = this.admitInbox();
    this.start();
    return message ? { queued: false, message } : { queued: false };
  }

  /**
   * Finishes durable work after a restart or a person's decision: resumes a cut or waiting turn,
   * recovers interrupted calls, drains the queue, starts a turn for waiting messages.
   */
  async resume(): Promise<void> {
    if (this.running) {
      // Whatever brought us here (a decision) may be what the running turn waits for: look again.
      this.armAlarm(this.watchdogMs);
      await this.idle();
      return this.resume();
    }
    // Interrupted calls (and approvals given just before a restart) first, each once. Without
    // any, a turn resumes in this same step, so whoever asked sees it running at once.
    if (this.engine.hasRecoverableCalls()) {
      await this.engine.recoverCalls();
      if (this.running) return this.resume();
    }
    const latest = this.engine.store.turns.latest();
    if (latest?.status === "waiting" && this.stillWaiting(latest.turnId)) {
      // Nothing to do until a person decides; the decision calls resume again.
    } else if (latest && (latest.status === "running" || latest.status === "waiting")) {
      this.start(latest);
    } else {
      await this.engine.drainQueue(null);
      if (!this.running && this.engine.store.turns.inboxSize() > 0) {
        this.admitInbox();
        this.start();
      }
    }
    await this.idle();
  }

  /** Resolves when no turn is running in this instance. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  /** Stops the running turn: its signal fires and no further model step starts. */
  stop(): boolean {
    if (!this.running) return false;
    this.execution?.abort(new Error("thread stopped"));
    return true;
  }

  // A person's decision runs outside any execution: the waiting turn resumes after it.

  /** Approves a waiting call (it runs once), then lets its turn go on. */
  async approve(callId: string, approvedBy: string, argsHash?: string): Promise<CallOutcome> {
    const host = createDispatchHost(this.engine, null);
    return this.afterDecision(await this.engine.withCall(callId, () => approveCall(host, callId, approvedBy, argsHash)));
  }

  /** Denies a waiting call; the model sees the denial when its turn goes on. */
  async deny(callId: string, deniedBy: string, reason?: string): Promise<CallOutcome> {
    const host = createDispatchHost(this.engine, null);
    return this.afterDecision(await this.engine.withCall(callId, async () => denyCall(host, callId, deniedBy, reason)));
  }

  /** Settles a parked call, then lets its turn go on. */
  async settle(callId: string, settlement: Settlement): Promise<CallOutcome> {
    const host = createDispatchHost(this.engine, null);
    return this.afterDecision(await this.engine.withCall(callId, () => settleCall(host, callId, settlement)));
  }

  /**
   * A waiting turn resumes and hands the model the result. When the call's turn already ended
   * (it was stopped), the model would never see it, so a system message carries it instead.
   */
  private afterDecision(outcome: CallOutcome): CallOutcome {
    const { store } = this.engine;
    // A parent waiting inside invokeTool for this call goes on with the decision.
    this.engine.notifyDecided(outcome.callId);
    const record = store.calls.get(outcome.callId);
    const turnStatus = record?.turnId ? store.turns.statusOf(record.turnId) : undefined;
    if (outcome.final && record?.source === "model" && turnStatus && turnStatus !== "waiting" && turnStatus !== "running") {
      const content = `A person settled call ${outcome.callId} (${outcome.toolName}) after its turn ended: ${outcome.status}: ${resultText(outcome.result)}`;
      // Into the history for the next turn; while another turn runs, through the inbox instead.
      if (this.busy) store.turns.enqueue({ role: "system", content });
      else this.engine.appendMessage({ role: "system", content });
    }
    void this.resume();
    return outcome;
  }

  /** Whether a call of the turn's open step still waits for approval or settlement. */
  private stillWaiting(turnId: string): boolean {
    const { store } = this.engine;
    const pending = (store.turns.pendingStep<ToolCallRequest>(turnId) ?? []).some((call) => {
      const status = store.calls.get(call.id)?.status;
      return status === "awaiting_approval" || status === "parked";
    });
    // A call queued by one of the step's calls that waits keeps the turn waiting too.
    return pending || store.calls.turnWaits(turnId);
  }

  private admitInbox(): Message[] {
    const pending = this.engine.store.turns.takeInbox();
    return this.engine.appendMessages(pending.map((p) => ({ role: p.role, content: p.content, ...(p.metadata ? { metadata: p.metadata } : {}) })));
  }

  private start(resume?: TurnRecord): void {
    // The turn starts once what the request wrote is durable, and apart from the request.
    this.running = this.engine
      .flush()
      .then(() => this.loop(resume))
      .finally(() => {
        this.running = null;
      });
  }

  private async loop(resume?: TurnRecord): Promise<void> {
    for (let next = resume; ; next = undefined) {
      const end = await this.runOne(next);
      if (end.status === "waiting") return;
      await this.engine.recoverCalls();
      await this.engine.drainQueue(null);
      if (this.engine.store.turns.inboxSize() === 0) return;
      this.admitInbox();
    }
  }

  private async runOne(resume?: TurnRecord): Promise<TurnEnd> {
    const { engine } = this;
    const { store } = engine;
    const turnId = resume?.turnId ?? engine.newId("turn");
    if (resume) store.turns.setStatus(turnId, "running");
    else store.turns.begin(turnId);
    engine.emit("turn_started", { turnId, ...(resume ? { resumed: true } : {}) });
    this.armAlarm(this.watchdogMs);
    const steps = resume?.steps ?? 0;
    let end: TurnEnd;
    try {
      const model = await modelFor(engine);
      const execution = Execution.forTurn({
        flowId: turnId,
        model,
        fallbacks: await fallbacksFor(engine),
        history: () => conversationWindow(engine, model),
        steps: { total: steps, a: steps, b: 0 },
      });
      this.execution = execution;
      end = await runTurn(createTurnHost(engine, execution), execution);
    } catch (e) {
      // The model could not be made (a bad spec, a missing binding): the turn fails and says why.
      end = { status: "failed", steps, error: errorMessage(e) };
    } finally {
      this.execution = null;
    }
    if (end.status === "waiting") {
      store.turns.setStatus(turnId, "waiting");
      return end;
    }
    if (end.status === "failed") {
      try {
        closeOpenStep(engine, turnId, end.error ?? "unknown error");
      } catch (e) {
        console.error("weft: could not close the failed turn's open step", e);
      }
    }
    store.turns.end(turnId, end.status, end.error);
    engine.emit("turn_finished", {
      turnId,
      status: end.status,
      steps: end.steps,
      ...(end.error ? { error: end.error } : {}),
      ...(end.stoppedBy ? { stoppedBy: end.stoppedBy } : {}),
    });
    return end;
  }
}
