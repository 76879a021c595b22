/**
 * A thread's world for the call runner kept in memory: the journal as a map, events as a list, a
 * catalog of given tools, and no hooks. What the runner's transitions need and nothing of
 * SQLite, the Durable Object or the engine, so they run in plain Node in milliseconds.
 */
import type { BookedCall, CallBook, CallWorld } from "../../src/calls/context.js";
import { CallLocks } from "../../src/calls/lock.js";
import type { CallRecord, CallStatus, ToolResult } from "../../src/protocol.js";
import { isFinalStatus } from "../../src/protocol.js";
import { ToolCatalog } from "../../src/tools/catalog.js";
import type { JournalEntry } from "../../src/tools/journal.js";
import type { ThreadState } from "../../src/tools/thread-state.js";
import type { StartedAs } from "../../src/tools/started-as.js";
import type { AnyToolDefinition } from "../../src/tools/types.js";

const WAITS = new Set<CallStatus>(["awaiting_approval", "parked"]);

/** The journal in memory, with the one-final-result rule of the SQLite store. */
export class MemoryBook implements CallBook {
  readonly rows = new Map<string, BookedCall>();
  get(callId: string): BookedCall | undefined {
    const row = this.rows.get(callId);
    return row && structuredClone(row);
  }
  insert(entry: JournalEntry): void {
    if (this.rows.has(entry.callId)) throw new Error(`row ${entry.callId} exists`);
    this.rows.set(entry.callId, { ...entry, attempts: entry.status === "started" ? 1 : 0, createdAt: Date.now(), ...(entry.status === "started" ? { startedAt: Date.now() } : {}) });
  }
  private open(callId: string): BookedCall | undefined {
    const row = this.rows.get(callId);
    return row && !isFinalStatus(row.status) ? row : undefined;
  }
  start(callId: string, input: unknown, effect: StartedAs): void {
    const row = this.open(callId);
    if (row) Object.assign(row, { status: "started", input, attempts: row.attempts + 1, startedAt: Date.now(), effect });
  }
  attempt(callId: string): void {
    const row = this.rows.get(callId);
    if (row?.status === "started") row.attempts += 1;
  }
  awaitApproval(callId: string, input: unknown, argsHash: string): void {
    const row = this.open(callId);
    if (row) Object.assign(row, { status: "awaiting_approval", input, argsHash });
  }
  setApprovedBy(callId: string, who: string): void {
    this.rows.get(callId)!.approvedBy = who;
  }
  setDecidedBy(callId: string, who: string): void {
    this.rows.get(callId)!.decidedBy = who;
  }
  park(callId: string, reason: string): void {
    const row = this.open(callId);
    if (row) Object.assign(row, { status: "parked", parkReason: reason });
  }
  restarted(callId: string): number {
    const row = this.rows.get(callId)!;
    row.restarts = (row.restarts ?? 0) + 1;
    return row.restarts;
  }
  finish(callId: string, status: CallStatus, result: ToolResult, details: { attempts: number; durationMs: number }): boolean {
    const row = this.open(callId);
    if (!row) return false;
    Object.assign(row, { status, result, attempts: details.attempts, durationMs: details.durationMs, finishedAt: Date.now() });
    return true;
  }
  mayHaveQueued(): boolean {
    return this.queued().length > 0;
  }
  queued(): BookedCall[] {
    return this.list(1000, 0, "queued");
  }
  queuedBy(parentCallId: string): BookedCall[] {
    return [...this.rows.values()].filter((r) => r.parentCallId === parentCallId && r.source === "queue").map((r) => structuredClone(r));
  }
  invokedWaiting(parentCallId: string): boolean {
    return [...this.rows.values()].some((r) => r.parentCallId === parentCallId && r.source === "invoke" && WAITS.has(r.status));
  }
  waitForPerson(): boolean {
    return [...this.rows.values()].some((r) => WAITS.has(r.status));
  }
  turnWaits(turnId: string): boolean {
    return [...this.rows.values()].some((r) => r.turnId === turnId && WAITS.has(r.status));
  }
  unfinished(): BookedCall[] {
    return this.list(1000, 0, "started");
  }
  list(limit: number, offset: number, status?: CallStatus): BookedCall[] {
    return [...this.rows.values()]
      .filter((r) => status === undefined || r.status === status)
      .slice(offset, offset + limit)
      .map((r) => structuredClone(r));
  }
}

/** A world over `tools`, with what it emitted in `events` and how often `execute` ran in `runs`. */
export function memoryWorld(tools: Record<string, AnyToolDefinition>) {
  const journal = new MemoryBook();
  const events: Array<{ type: string; data: unknown }> = [];
  const catalog = new ToolCatalog(tools);
  const world: CallWorld = {
    journal,
    locks: new CallLocks(),
    settings: { branchId: "t", dryRun: false, resultCapBytes: 64 * 1024, argsKey: () => "memory-world args key", files: { writeFile: () => {}, fileUrl: (p) => p, maxAttachments: 4 } },
    emit: (type, data) => void events.push({ type, data }),
    holdStart(entry, started) {
      if (entry) journal.insert(entry);
      if (started) events.push({ type: "tool_call_started", data: started });
    },
    flush: async () => {},
    journalDurably: async (entry) => journal.insert(entry),
    wakeSoon: () => {},
    catalogFor: () => catalog,
    stateFor: () => ({}) as ThreadState,
    hasToolHook: () => false,
    toolHook: async () => {},
    crashHook: null,
    turnStatus: () => undefined,
  };
  return { world, journal, events };
}

/** The status of every row, in insertion order: `id:status`. */
export function statuses(journal: MemoryBook): string[] {
  return [...journal.rows.values()].map((r: CallRecord) => `${r.callId}:${r.status}`);
}
