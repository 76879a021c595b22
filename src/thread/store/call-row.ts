/**
 * The calls table's row as SQLite holds it, and its mapping to a call record: the column names,
 * how `input` is stored once when it equals the argument text, and how JSON columns are read back.
 * @module
 */
import type { CallSource, CallStatus, ToolResult } from "../../protocol.js";
import type { LedgerRecord } from "../../ports/ledger.js";
import { wireJson } from "../../json-shape.js";

/** A row of the calls table, column for column (`SELECT *`). */
export interface CallRow extends Record<string, SqlStorageValue> {
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
  started_at: number | null;
  finished_at: number | null;
  duration_ms: number | null;
  stubbed: number;
  approved_by: string | null;
  decided_by: string | null;
  park_reason: string | null;
  args_hash: string | null;
  error_code: string | null;
  full_result_path: string | null;
  error_details: string | null;
  outcome: string | null;
  restarts: number;
}

/**
 * Stored in `input` when the validated input's JSON is the argument text itself, so a large
 * argument is stored once (a row must stay within SQLite's 2 MB on Cloudflare).
 */
export const SAME_AS_ARGS = "=";

/** The `input` column for a call with argument text `argsText`. */
export function inputColumn(input: unknown, argsText: string | undefined): string {
  const text = wireJson(input ?? null) ?? "null";
  return argsText !== undefined && text === argsText ? SAME_AS_ARGS : text;
}

/** A stored call, with the parent that queued or invoked it. */
export type StoredCall = LedgerRecord;

/** The call record a row stands for: nullable columns left out, JSON columns parsed, `input` read from the argument text when stored as the same. */
export function toRecord(row: CallRow): StoredCall {
  const record: StoredCall = {
    callId: row.call_id,
    toolName: row.tool_name,
    source: row.source as CallSource,
    status: row.status as CallStatus,
    argsText: row.args_text,
    attempts: row.attempts,
    effectKey: row.effect_key,
    createdAt: row.created_at,
  };
  if (row.input !== null) record.input = JSON.parse(row.input === SAME_AS_ARGS ? row.args_text : row.input) as unknown;
  if (row.result !== null) record.result = JSON.parse(row.result) as ToolResult;
  if (row.turn_id !== null) record.turnId = row.turn_id;
  if (row.parent_call_id !== null) record.parentCallId = row.parent_call_id;
  if (row.started_at !== null) record.startedAt = row.started_at;
  if (row.finished_at !== null) record.finishedAt = row.finished_at;
  if (row.duration_ms !== null) record.durationMs = row.duration_ms;
  if (row.stubbed === 1) record.stubbed = true;
  if (row.approved_by !== null) record.approvedBy = row.approved_by;
  if (row.decided_by) record.decidedBy = row.decided_by;
  if (row.park_reason !== null) record.parkReason = row.park_reason;
  if (row.args_hash !== null) record.argsHash = row.args_hash;
  if (row.error_code !== null) record.errorCode = row.error_code;
  if (row.error_details !== null) record.errorDetails = JSON.parse(row.error_details) as Record<string, unknown>;
  if (row.full_result_path !== null) record.fullResultPath = row.full_result_path;
  if (row.outcome === "unknown") record.outcome = "unknown";
  if (row.restarts > 0) record.restarts = row.restarts;
  return record;
}

