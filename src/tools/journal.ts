/**
 * The call journal as the dispatch pipeline sees it; the thread's `CallStore` implements it.
 * Contract: a final result is written at most once per call id (`finish` returns false after).
 * @module
 */
import type { CallRecord, CallSource, CallStatus, ToolResult } from "../protocol.js";

/** A new journal row. */
export interface JournalEntry {
  callId: string;
  toolName: string;
  source: CallSource;
  status: "queued" | "started";
  argsText: string;
  input?: unknown;
  effectKey: string;
  turnId?: string;
  parentCallId?: string;
}

/** The call journal. */
export interface CallJournal {
  get(callId: string): CallRecord | undefined;
  insert(entry: JournalEntry): void;
  /** Marks an attempt started, durably, before `execute` runs. */
  start(callId: string, input: unknown): void;
  attempt(callId: string): void;
  awaitApproval(callId: string, input: unknown, argsHash: string): void;
  setApprovedBy(callId: string, who: string): void;
  /** Records who denied or settled a call. */
  setDecidedBy(callId: string, who: string): void;
  park(callId: string, reason: string): void;
  /** Counts one more run of a started call cut short by a restart; returns the new count. */
  restarted(callId: string): number;
  finish(
    callId: string,
    status: CallStatus,
    result: ToolResult,
    details: { attempts: number; durationMs: number; stubbed?: boolean; errorCode?: string; fullResultPath?: string; outcome?: "unknown" },
  ): boolean;
}
