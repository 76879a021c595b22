/**
 * Parents that wait inside `invokeTool` for a person's decision on a nested call. The nested call
 * is durable; what waits here is only the parent's run, woken when the call is decided (approved,
 * denied, settled, or an approval recovered after a restart) or when that run is aborted.
 * @module
 */
import type { ToolResult } from "../protocol.js";
import type { CallOutcome } from "./call.js";

/** The runs waiting on people's decisions, per call id, in one thread. */
export class DecisionWaiters {
  private readonly waiters = new Map<string, Set<() => void>>();

  /**
   * Waits until `first`'s call is final and answers its result. `read` looks the call up again:
   * the waiter listens before it looks, so a decision made in between is never missed.
   * If `signal` fires first, it answers an error result; the call itself keeps waiting.
   */
  async until(first: CallOutcome, toolName: string, signal: AbortSignal, read: (callId: string) => CallOutcome): Promise<ToolResult> {
    let outcome = first;
    while (!outcome.final) {
      if (signal.aborted) {
        return { status: "error", error: `stopped while call ${outcome.callId} (${toolName}) waited for a person; it still waits, and its decision will not reach this call` };
      }
      const { promise, cancel } = this.wait(outcome.callId, signal);
      outcome = read(outcome.callId);
      if (outcome.final) cancel();
      else await promise;
      outcome = read(outcome.callId);
    }
    return outcome.result;
  }

  /** Wakes whatever waits on `callId`'s decision. */
  notify(callId: string): void {
    for (const wake of [...(this.waiters.get(callId) ?? [])]) wake();
    this.waiters.delete(callId);
  }

  /** Resolves when {@link notify} runs for `callId`, `signal` fires, or `cancel` is called. */
  private wait(callId: string, signal: AbortSignal): { promise: Promise<void>; cancel: () => void } {
    let cancel = () => {};
    const promise = new Promise<void>((resolve) => {
      const waiters = this.waiters.get(callId) ?? new Set<() => void>();
      this.waiters.set(callId, waiters);
      const done = () => {
        waiters.delete(done);
        signal.removeEventListener("abort", done);
        resolve();
      };
      waiters.add(done);
      signal.addEventListener("abort", done, { once: true });
      cancel = done;
    });
    return { promise, cancel };
  }
}
