/**
 * The calls table's row as SQLite holds it: its mapping to a call record (column names, `input`
 * stored once when it equals the argument text, JSON read back) and the statements that write it.
 * @module
 */
import type { CallSource, CallStatus, ToolResult } from "../../protocol.js";
import type { StartedAs, FinishDetails, JournalEntry, LedgerRecord } from "../../ports/ledger.js";
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
  effect: string | null;
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
  if (row.effect !== null) record.effect = row.effect as StartedAs;
  return record;
}

/**
 * Rows without a final result (`finishRow` sets `finished_at` with it, once), and the WHERE of the
 * partial index `calls_unfinished`, which SQLite seeks only for a query stating it word for word.
 */
export const UNFINISHED = "finished_at IS NULL";

/** The columns a new row sets, in `rowValues`' order. */
const ROW_COLUMNS = ["call_id", "ord", "tool_name", "source", "status", "args_text", "input", "attempts", "effect_key", "turn_id", "parent_call_id", "created_at", "started_at", "effect"];
/** The columns a final result sets besides status and attempts, in `resultValues`' order. */
const RESULT_COLUMNS = ["result", "duration_ms", "finished_at", "stubbed", "error_code", "full_result_path", "error_details", "outcome"];
const INSERT_COLUMNS = [...ROW_COLUMNS, ...RESULT_COLUMNS];
/** INSERTs of a row (`INSERT_COLUMNS`) and UPDATEs to a final result (`RESULT_COLUMNS`) by which columns get a value (bit i for column i), made once each. */
const inserts = new Map<number, string>();
const finishes = new Map<number, string>();

/** Appends the values that are not NULL to `given`; returns which they were (bit i for `values[i]`). */
function pushGiven(values: SqlStorageValue[], given: SqlStorageValue[]): number {
  let mask = 0;
  for (let i = 0; i < values.length; i++) {
    if (values[i] === null) continue;
    mask |= 1 << i;
    given.push(values[i]!);
  }
  return mask;
}

/**
 * Inserts a row given its values in `INSERT_COLUMNS`' order (a new row: `rowValues`; one with its
 * result: those and `resultValues`). Columns whose value is NULL are left out of the statement
 * (their default: NULL, or 0 for `stubbed`): a direct read binds 7 fewer values than the 22 columns, fewer to convert.
 */
export function insertRow(sql: SqlStorage, values: SqlStorageValue[]): void {
  const given: SqlStorageValue[] = [];
  const mask = pushGiven(values, given);
  let query = inserts.get(mask);
  if (query === undefined) {
    const columns = INSERT_COLUMNS.filter((_, i) => mask & (1 << i));
    query = `INSERT INTO calls (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`;
    inserts.set(mask, query);
  }
  sql.exec(query, ...given);
}

/**
 * Records a final result on an unfinished row, given `resultValues`. A result column whose value
 * is NULL is left out: on a row without a result every one of them still holds its default (only
 * a final result sets them, once), so a write's result binds 6 values instead of 11.
 */
export function finishRow(sql: SqlStorage, callId: string, status: CallStatus, attempts: number, values: SqlStorageValue[]): SqlStorageCursor<Record<string, SqlStorageValue>> {
  const given: SqlStorageValue[] = [status, attempts];
  const mask = pushGiven(values, given);
  let query = finishes.get(mask);
  if (query === undefined) {
    const columns = RESULT_COLUMNS.filter((_, i) => mask & (1 << i));
    query = `UPDATE calls SET status = ?, attempts = ?, ${columns.map((c) => `${c} = ?`).join(", ")} WHERE call_id = ? AND ${UNFINISHED}`;
    finishes.set(mask, query);
  }
  given.push(callId);
  return sql.exec(query, ...given);
}

/** A new row's values in `ROW_COLUMNS`' order, for `insertRow`. */
export function rowValues(call: JournalEntry, ord: number, createdAt: number, status: CallStatus, attempts: number, startedAt: number | null): SqlStorageValue[] {
  const input = call.input === undefined ? null : inputColumn(call.input, call.argsText);
  return [call.callId, ord, call.toolName, call.source, status, call.argsText, input, attempts, call.effectKey, call.turnId ?? null, call.parentCallId ?? null, createdAt, startedAt, call.effect ?? null];
}

/** A final result's values in `RESULT_COLUMNS`' order, for `finishRow` (or after `rowValues`, for `insertRow`). */
export function resultValues(result: ToolResult, details: FinishDetails, now: number): SqlStorageValue[] {
  const errorDetails = details.errorDetails ? JSON.stringify(details.errorDetails) : null;
  // Not stubbed is the column's default (0), so NULL here: left out of the statement.
  return [JSON.stringify(result), details.durationMs, now, details.stubbed ? 1 : null, details.errorCode ?? null, details.fullResultPath ?? null, errorDetails, details.outcome ?? null];
}
