/**
 * Makes a thread instance's meter: its ledger over the thread's SQLite and its owner's account
 * stub (the `ACCOUNT` binding). Kept apart from meter.ts so that src/run/ reaches no account code.
 * @module
 */
import { accountOf } from "../account/api.js";
import type { EventPayloads } from "../protocol.js";
import type { Budget } from "./budgets.js";
import { ThreadMeter } from "./meter.js";
import { ThreadUsageLedger } from "./thread-ledger.js";
import { removedThread, revocable } from "../run/revocable.js";
import type { ThreadTracer } from "./tracer.js";

/** What {@link threadMeterOf} reads of the thread. */
export interface MeteredThread {
  readonly meta: { threadId: string; createdAt: number; agentId: string; userId: string | null };
  readonly agent: { budgets?: readonly Budget[] };
  readonly workerEnv: Readonly<Record<string, unknown>>;
  /** True once the thread is removed: its ledger then refuses (the table may be a new thread's). */
  readonly removed: boolean;
  emit(type: "budget_exceeded", data: EventPayloads["budget_exceeded"]): void;
}

/**
 * The meter of a thread instance over its SQLite `sql`: budgets are held in the owner's account
 * (the `ACCOUNT` binding); a thread without an owner or binding only keeps its ledger.
 */
export function threadMeterOf(thread: MeteredThread, sql: SqlStorage, tracer: ThreadTracer | null = null, defer?: (work: Promise<unknown>) => void): ThreadMeter {
  const ns = thread.workerEnv.ACCOUNT as DurableObjectNamespace | undefined;
  const userId = thread.meta.userId;
  return new ThreadMeter({
    threadId: thread.meta.threadId,
    createdAt: thread.meta.createdAt,
    agentId: thread.meta.agentId,
    ...(thread.agent.budgets ? { agentBudgets: thread.agent.budgets } : {}),
    workerEnv: thread.workerEnv,
    account: ns && userId ? accountOf(ns, userId) : null,
    // `sql` is the Durable Object's, shared with a thread made again on the id after a delete.
    ledger: revocable(new ThreadUsageLedger(sql), () => thread.removed, removedThread),
    refused: (turnId, r) => thread.emit("budget_exceeded", { turnId, budget: r.budget, measure: r.measure, limit: r.limit, used: r.used, requested: r.requested, ...(r.unpriced ? { unpriced: true as const } : {}) }),
    ...(defer ? { defer } : {}),
    ...(tracer ? { recorded: (row, finishReason) => tracer.chat(row, finishReason) } : {}),
  });
}
