/**
 * A child thread's first turn as its parent sees it: the turn its opening message started (the
 * parent's call). A later turn, which only the child's owner can start, is not the call's, so the
 * parent's answer, wait and stop reach the first turn alone.
 * @module
 */
import type { ChildAnswer } from "../ports/threads.js";
import { isUnfinished } from "./turn-table.js";
import type { RunWorld } from "./world.js";

/** What the first turn's view needs of the thread's turn runner. */
export interface TurnsOfThread {
  /** True while a turn runs in this instance. */
  active(): boolean;
  /** Stops the turn about to begin, running or waiting; false when there is none to stop. */
  stop(): boolean;
  /** Goes on with whatever is left to do (a waiting opening message included); resolves once nothing runs. */
  resume(): Promise<void>;
  /** Calls `told` once, when the next turn of the loop ends. */
  onTurnEnd(told: () => void): void;
}

/** The first turn of a thread, for its parent (the threads port's `answer` and `stop`). */
export class FirstTurn {
  constructor(
    private readonly engine: RunWorld,
    private readonly turns: TurnsOfThread,
  ) {}

  /** How the first turn stands, its final answer so far, and why it failed or stopped. */
  answer(): ChildAnswer {
    const { turns, messages } = this.engine.store;
    const first = turns.first();
    if (!first) return { status: this.turns.active() || turns.inboxSize() > 0 ? "running" : "idle", answer: "" };
    // While it is unfinished no later turn begins, so a running runner runs it.
    const status: ChildAnswer["status"] = first.status === "waiting" && this.turns.active() ? "running" : first.status;
    return { status, answer: messages.lastAnswer(first.messages), ...(first.error ? { error: first.error } : {}) };
  }

  /** Whether the first turn ended. */
  ended(): boolean {
    const status = this.engine.store.turns.first()?.status;
    return status !== undefined && !isUnfinished(status);
  }

  /**
   * Stops the first turn if it has not ended; a later turn is left alone. Not begun yet (its
   * opening waits, or is being admitted), it begins stopped.
   */
  stop(): boolean {
    const { turns } = this.engine.store;
    if (turns.first() !== undefined) return !this.ended() && this.turns.stop();
    if (this.turns.active()) return this.turns.stop();
    // Its opening waits: kept with it, the turn it begins is stopped (with nothing posted after it).
    const [opening] = turns.inbox();
    if (!opening) return false;
    turns.stopAdmission([opening.id], "thread stopped");
    void this.turns.resume().catch(() => undefined);
    return true;
  }

  /**
   * Resolves once the first turn has ended or waits for a person, starting it if its opening
   * waits; turns queued behind it are not waited for.
   */
  async settled(): Promise<void> {
    const resumed = this.turns.resume();
    resumed.catch(() => undefined);
    for (;;) {
      const status = this.engine.store.turns.first()?.status;
      // Waiting while a turn runs here is a decision or a stop resuming it: not settled yet.
      if (status !== undefined && status !== "running" && !(status === "waiting" && this.turns.active())) return;
      if (await Promise.race([resumed.then(() => true), new Promise<false>((r) => this.turns.onTurnEnd(() => r(false)))])) return;
    }
  }
}
