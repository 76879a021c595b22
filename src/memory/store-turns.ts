/**
 * Turns and the inbox of the memory store, with the SQLite table's rules (newest turn, request
 * counts, forced side, usage sums, inbox ids).
 * @module
 */
import type { ModelStepRecord, TokenUsage, TurnErrorCode } from "../protocol.js";
import type { FirstTurn, Inbox, PendingMessage, TurnRecord, TurnStatus, TurnSteps, TurnTable } from "../ports/store.js";
import { stepsUsage } from "../usage/totals.js";
import type { MemoryData, MemoryTurn } from "./data.js";

const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** Turns and the inbox in memory. */
export class MemoryTurns implements TurnTable, TurnSteps, Inbox {
  /** @param data the store's tables (read each time: `atomically` may replace them). */
  constructor(private readonly data: () => MemoryData) {}

  private find(turnId: string): MemoryTurn | undefined {
    return this.data().turns.find((t) => t.turnId === turnId);
  }

  begin(turnId: string, now = Date.now(), settings?: TurnRecord["modelSettings"]): void {
    if (this.find(turnId)) throw new Error(`UNIQUE constraint failed: turns.turn_id (${turnId})`);
    const own = settings ? { modelSettings: clone(settings) } : {};
    const messagesBefore = this.data().messages.at(-1)?.message.id ?? 0;
    this.data().turns.push({ turnId, status: "running", steps: 0, startedAt: now, pendingStep: null, modelRequest: null, forcedSide: null, messagesBefore, ...own });
  }

  first(): FirstTurn | undefined {
    const [t, later] = this.data().turns;
    if (!t) return undefined;
    const turn: FirstTurn = { turnId: t.turnId, status: t.status, messages: { after: t.messagesBefore, until: later ? later.messagesBefore : null } };
    if (t.error !== undefined) turn.error = t.error;
    return turn;
  }

  requestStop(turnId: string, reason: string): void {
    const turn = this.find(turnId);
    if (turn) turn.stopRequested = reason;
  }

  stopRequested(turnId: string): string | undefined {
    return this.find(turnId)?.stopRequested;
  }

  setStatus(turnId: string, status: "running" | "waiting"): void {
    const turn = this.find(turnId);
    if (turn) turn.status = status;
  }

  step(turnId: string, steps: number): void {
    const turn = this.find(turnId);
    if (turn) turn.steps = steps;
  }

  end(turnId: string, status: Exclude<TurnStatus, "running" | "waiting">, error?: string, errorCode?: TurnErrorCode): void {
    const turn = this.find(turnId);
    if (!turn) return;
    turn.status = status;
    turn.finishedAt = Date.now();
    if (error === undefined) delete turn.error;
    else turn.error = error;
    if (errorCode === undefined) delete turn.errorCode;
    else turn.errorCode = errorCode;
  }

  statusOf(turnId: string): TurnStatus | undefined {
    return this.find(turnId)?.status;
  }

  latestStatus(): TurnStatus | undefined {
    return this.data().turns.at(-1)?.status;
  }

  latest(): TurnRecord | undefined {
    const t = this.data().turns.at(-1);
    if (!t) return undefined;
    const turn: TurnRecord = { turnId: t.turnId, status: t.status, steps: t.steps, startedAt: t.startedAt };
    if (t.finishedAt !== undefined) turn.finishedAt = t.finishedAt;
    if (t.error !== undefined) turn.error = t.error;
    if (t.errorCode !== undefined) turn.errorCode = t.errorCode;
    if (t.modelSettings !== undefined) turn.modelSettings = clone(t.modelSettings);
    if (t.modelSteps && t.modelSteps.length > 0) {
      turn.modelSteps = clone(t.modelSteps);
      turn.usage = stepsUsage(t.modelSteps);
    }
    return turn;
  }

  setPendingStep(turnId: string, calls: readonly unknown[] | null): void {
    const turn = this.find(turnId);
    if (turn) turn.pendingStep = calls ? JSON.stringify(calls) : null;
  }

  pendingStep<T>(turnId: string): T[] | null {
    const text = this.find(turnId)?.pendingStep;
    return text ? (JSON.parse(text) as T[]) : null;
  }

  countModelRequest(turnId: string, step: number): number {
    const turn = this.find(turnId);
    const last = turn?.modelRequest ?? null;
    const count = last?.step === step ? last.count + 1 : 1;
    if (turn) turn.modelRequest = { step, count };
    return count;
  }

  forcedSide(turnId: string): "a" | "b" | null {
    return this.find(turnId)?.forcedSide ?? null;
  }

  setForcedSide(turnId: string, side: "a" | "b"): void {
    const turn = this.find(turnId);
    if (turn) turn.forcedSide = side;
  }

  recordModelStep(turnId: string, record: ModelStepRecord, count?: number, pending?: readonly unknown[] | null): TokenUsage {
    if (count !== undefined) this.step(turnId, count);
    if (pending !== undefined) this.setPendingStep(turnId, pending);
    const turn = this.find(turnId);
    const steps = [...(turn?.modelSteps ?? []), clone(record)];
    if (turn) {
      turn.modelSteps = steps;
      turn.forcedSide = null;
    }
    return stepsUsage(steps);
  }

  stepUsage(turnId: string): TokenUsage {
    return stepsUsage(this.find(turnId)?.modelSteps ?? []);
  }

  enqueue(message: Omit<PendingMessage, "id">, _now = Date.now()): number {
    const data = this.data();
    const inbox = data.inbox;
    // As the SQLite store: never an id given before.
    const id = Math.max(inbox.reduce((max, m) => Math.max(max, m.id), 0), data.counters.inbox ?? 0) + 1;
    data.counters.inbox = id;
    const pending: PendingMessage = { id, role: message.role, content: message.content };
    if (message.metadata) pending.metadata = clone(message.metadata);
    inbox.push(pending);
    return id;
  }

  inbox(): PendingMessage[] {
    return clone(this.data().inbox);
  }

  dropInbox(ids: readonly number[]): { dropped: number; stopAsked?: string } {
    const data = this.data();
    const gone = data.inbox.filter((m) => ids.includes(m.id));
    const stopAsked = gone.findLast((m) => m.stopRequested !== undefined)?.stopRequested;
    data.inbox = data.inbox.filter((m) => !ids.includes(m.id));
    return { dropped: gone.length, ...(stopAsked !== undefined ? { stopAsked } : {}) };
  }

  stopAdmission(ids: readonly number[], reason: string): void {
    for (const m of this.data().inbox) if (ids.includes(m.id)) m.stopRequested = reason;
  }

  inboxSize(): number {
    return this.data().inbox.length;
  }
}
