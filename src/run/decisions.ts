/**
 * A person's decisions on a thread's calls (approve, deny, settle): each runs outside any
 * execution, under the call's lock, and then the waiting turn goes on.
 * @module
 */
import { WeftError } from "../errors.js";
import type { CallOutcome } from "../calls/call.js";
import { resultText } from "../calls/result.js";
import type { Settlement } from "../calls/runner.js";
import type { RunWorld } from "./world.js";
import { isUnfinished } from "./turn-table.js";

/** What a decision needs of the thread's turn runner. */
export interface TurnsToGoOn {
  /** Whether a turn runs or waits: a message then goes through the inbox. */
  busy(): boolean;
  /** Lets the waiting turn (or whatever else waits) go on. */
  resume(): Promise<void>;
  /** @throws WeftError `thread_not_found` once the thread is being removed. */
  checkOpen(): void;
}

/** The decisions a person makes on a thread's waiting and parked calls. */
export class Decisions {
  constructor(
    private readonly engine: RunWorld,
    private readonly turns: TurnsToGoOn,
  ) {}

  /**
   * Approves a waiting call (it runs once), then lets its turn go on.
   * @throws WeftError `agent_not_found` when the thread's agent is no longer deployed (its tools
   * went with it; a denial or a stop still ends the wait); as {@link checkDecidable}.
   */
  async approve(callId: string, approvedBy: string, argsHash?: string): Promise<CallOutcome> {
    this.engine.requireAgent();
    return this.afterDecision(await this.engine.calls.approve(callId, approvedBy, argsHash, () => this.checkDecidable(callId)));
  }

  /** Denies a waiting call; the model sees the denial when its turn goes on. @throws as {@link checkDecidable}. */
  async deny(callId: string, deniedBy: string, reason?: string, argsHash?: string): Promise<CallOutcome> {
    return this.afterDecision(await this.engine.calls.deny(callId, deniedBy, reason, argsHash, () => this.checkDecidable(callId)));
  }

  /**
   * Settles a parked call (or records the client's answer to a client tool's call), then lets its
   * turn go on. @throws WeftError `thread_not_found` once the thread is being removed; an answer
   * as {@link checkDecidable}.
   */
  async settle(callId: string, settlement: Settlement): Promise<CallOutcome> {
    // An answer, like an approval, is refused for a call of a stopped turn: it ends aborted.
    const check = settlement.outcome === "answered" ? () => this.checkDecidable(callId) : () => this.turns.checkOpen();
    return this.afterDecision(await this.engine.calls.settle(callId, settlement, check));
  }

  /**
   * An approval or denial holds the call's lock: the thread is open, and the call's own turn was
   * not stopped (a stop answered before the turn's calls took it: they are aborted, never run).
   * @throws WeftError `thread_not_found`, or `call_not_waiting` for a call of a stopped turn.
   */
  private checkDecidable(callId: string): void {
    this.turns.checkOpen();
    const { turns, calls } = this.engine.store;
    const turnId = calls.get(callId)?.turnId;
    if (turnId !== undefined && isUnfinished(turns.statusOf(turnId)) && turns.stopRequested(turnId) !== undefined) {
      throw new WeftError("call_not_waiting", `call ${callId}'s turn was stopped; it does not run`, { callId, status: "aborted" });
    }
  }

  /**
   * A waiting turn resumes and hands the model the result. When the call's turn already ended
   * (it was stopped), the model would never see it, so a system message carries it instead.
   */
  private afterDecision(outcome: CallOutcome): CallOutcome {
    // A repeat changed nothing: the first answer told the turn, or the history, already.
    if (outcome.repeated) return outcome;
    const { store } = this.engine;
    const record = store.calls.get(outcome.callId);
    const turnStatus = record?.turnId ? store.turns.statusOf(record.turnId) : undefined;
    if (outcome.final && record?.source === "model" && turnStatus && !isUnfinished(turnStatus)) {
      const content = `A person settled call ${outcome.callId} (${outcome.toolName}) after its turn ended: ${outcome.status}: ${resultText(outcome.result)}`;
      // Into the history for the next turn; while another turn runs, through the inbox instead.
      if (this.turns.busy()) store.turns.enqueue({ role: "system", content });
      else this.engine.appendMessage({ role: "system", content });
    }
    void this.turns.resume();
    return outcome;
  }
}
