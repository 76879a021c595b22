/**
 * Call records: one row per call id, written before `execute` (the journal) and again with the
 * final result. A row with a final status is never rewritten, so a call id has exactly one result.
 * @module
 */
import type { CallRecord, CallSource, CallStatus, ToolResult } from "../../protocol.js";

/** Statuses after which a call never changes again. */
export const FINAL_STATUSES: ReadonlySet<CallStatus> = new Set(["succeeded", "failed", "denied", "aborted"]);

interface CallRow extends Record<string, SqlStorageValue> {
  call_id: string;
  ord: number;
  tool_name: string;
  source: string;
  status: string;
  args_text: string;
  input: string | null;
  result: string | null;
  attempts: number;
  effect_key: string;
  turn_id: string | null;
  parent_call_id: string | null;
  created_at: number;
  finished_at: number | null;
  duration_ms: number | null;
}

function toRecord(row: CallRow): CallRecord & { parentCallId?: string } {
  const record: CallRecord & { parentCallId?: string } = {
    callId: row.call_id,
    toolName: row.tool_name,
    source: row.source as CallSource,
    status: row.status as CallStatus,
    argsText: row.args_text,
    attempts: row.attempts,
    effectKey: row.effect_key,
    createdAt: row.created_at,
  };
  if (row.input !== null) record.input = JSON.parse(row.input) as unknown;
  if (row.result !== null) record.result = JSON.parse(row.result) as ToolResult;
  if (row.turn_id !== null) record.turnId = row.turn_id;
  if (row.parent_call_id !== null) record.parentCallId = row.parent_call_id;
  if (row.finished_at !== null) record.finishedAt = row.finished_at;
  if (row.duration_ms !== null) record.durationMs = row.duration_ms;
  return record;
}

/** A new call row. */
export interface NewCall {
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

/** Reads and writes call rows. */
export class CallStore {
  constructor(private readonly sql: SqlStorage) {}

  get(callId: string): (CallRecord & { parentCallId?: string }) | undefined {
    const row = this.sql.exec<CallRow>("SELECT * FROM calls WHERE call_id = ?", callId).toArray()[0];
    return row ? toRecord(row) : undefined;
  }

  /** Inserts a row; `ord` orders the queue and listings. */
  insert(call: NewCall, now = Date.now()): void {
    this.sql.exec(
      `INSERT INTO calls (call_id, ord, tool_name, source, status, args_text, input, attempts, effect_key, turn_id, parent_call_id, created_at, started_at)
       VALUES (?, (SELECT COALESCE(MAX(ord), 0) + 1 FROM calls), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      call.callId,
      call.toolName,
      call.source,
      call.status,
      call.argsText,
      call.input === undefined ? null : JSON.stringify(call.input),
      call.status === "started" ? 1 : 0,
      call.effectKey,
      call.turnId ?? null,
      call.parentCallId ?? null,
      now,
      call.status === "started" ? now : null,
    );
  }

  /** Marks a queued row started (the journal entry before `execute`). */
  start(callId: string, input: unknown, now = Date.now()): void {
    this.sql.exec(
      "UPDATE calls SET status = 'started', input = ?, attempts = attempts + 1, started_at = ? WHERE call_id = ? AND status IN ('queued', 'started')",
      JSON.stringify(input ?? null),
      now,
      callId,
    );
  }

  /**
   * Records the final result once.
   * @returns false when the row already had a final result (nothing written).
   */
  finish(callId: string, status: CallStatus, result: ToolResult, attempts: number, durationMs: number, now = Date.now()): boolean {
    const cursor = this.sql.exec(
      `UPDATE calls SET status = ?, result = ?, attempts = ?, duration_ms = ?, finished_at = ?
       WHERE call_id = ? AND status NOT IN ('succeeded', 'failed', 'denied', 'aborted')`,
      status,
      JSON.stringify(result),
      attempts,
      durationMs,
      now,
      callId,
    );
    return cursor.rowsWritten > 0;
  }

  /** Queued calls in queue order. */
  queued(): CallRecord[] {
    return this.sql.exec<CallRow>("SELECT * FROM calls WHERE status = 'queued' ORDER BY ord").toArray().map(toRecord);
  }

  /** Calls in creation order, newest last. */
  list(limit = 1000, offset = 0): CallRecord[] {
    return this.sql.exec<CallRow>("SELECT * FROM calls ORDER BY ord LIMIT ? OFFSET ?", limit, offset).toArray().map(toRecord);
  }
}
