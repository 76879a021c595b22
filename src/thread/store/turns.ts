/**
 * Turns and the pending inbox. A turn's final status is stored so a client that connects later
 * sees how it ended.
 * @module
 */

import type { ModelStepRecord, TokenUsage, TurnErrorCode } from "../../protocol.js";
import type { FirstTurn, Inbox, PendingMessage, TurnRecord, TurnStatus, TurnSteps, TurnTable } from "../../ports/store.js";
import { stepsUsage } from "../../usage/totals.js";
import { COUNT_REQUEST_SQL, FIRST_TURN_SQL, INBOX_INSERT_SQL, INBOX_SQL, type InboxRow, TURN_RECORD_COLUMNS, type TurnRow, pendingOf, turnRecordOf } from "../../run/turn-table.js";

/** Turn states and the stored turn (defined with the store port). */
export type { TurnRecord, TurnStatus } from "../../ports/store.js";

/** A message waiting for the next turn (defined with the store port). */
export type { PendingMessage } from "../../ports/store.js";

/** The newest turn's status, read once until a write changes it (or by the wake read, `ThreadStore.wake`). */
export const NEWEST_STATUS_SQL = "SELECT status FROM turns ORDER BY ord DESC LIMIT 1";

/** Turn rows and inbox rows. */
export class TurnStore implements TurnTable, TurnSteps, Inbox {
  /**
   * The newest turn's status as last read or written here (null: no turn yet; undefined: not
   * known), so the per-call busy check reads no row. Only this class writes `turns`.
   */
  private newest: TurnStatus | null | undefined = undefined;

  constructor(private readonly sql: SqlStorage) {}

  /** Forgets what is kept in memory (a transaction that wrote it was rolled back). */
  forget(): void {
    this.newest = undefined;
  }

  /** Takes the newest turn's status as the wake read found it ({@link NEWEST_STATUS_SQL}; null: no turn). */
  knowNewest(status: string | null): void {
    this.newest = status as TurnStatus | null;
  }

  begin(turnId: string, now = Date.now(), settings?: TurnRecord["modelSettings"]): void {
    this.newest = undefined;
    this.sql.exec(
      // ord: the rowid, the last one's + 1; messages_before: the messages so far (ids are 1..n)
      "INSERT INTO turns (turn_id, status, started_at, model_settings, messages_before) VALUES (?, 'running', ?, ?, (SELECT COALESCE(MAX(id), 0) FROM messages))",
      turnId,
      now,
      settings ? JSON.stringify(settings) : null,
    );
  }

  /** Marks a turn waiting for a person (approval or a parked call) or running again. */
  setStatus(turnId: string, status: "running" | "waiting"): void {
    this.newest = undefined;
    this.sql.exec("UPDATE turns SET status = ? WHERE turn_id = ?", status, turnId);
  }

  /** The calls of the step being dispatched; kept until their results join the history. Unchanged, no row is written. */
  setPendingStep(turnId: string, calls: readonly unknown[] | null): void {
    this.sql.exec("UPDATE turns SET pending_step = ?1 WHERE turn_id = ?2 AND pending_step IS NOT ?1", calls ? JSON.stringify(calls) : null, turnId);
  }

  pendingStep<T>(turnId: string): T[] | null {
    const row = this.sql.exec<{ pending_step: string | null }>("SELECT pending_step FROM turns WHERE turn_id = ?", turnId).toArray()[0];
    return row?.pending_step ? (JSON.parse(row.pending_step) as T[]) : null;
  }

  /**
   * Counts a request of model step `step` of the turn: 1 the first time, more only when a restart
   * cut an earlier request of the same step before its answer was stored.
   */
  countModelRequest(turnId: string, step: number): number {
    const row = this.sql.exec<{ count: number }>(COUNT_REQUEST_SQL, step, turnId).toArray()[0];
    return row?.count ?? 1;
  }

  /** The side a tool or hook forced for the turn's next model step, until that step is recorded. */
  forcedSide(turnId: string): "a" | "b" | null {
    const row = this.sql.exec<{ forced_side: string | null }>("SELECT forced_side FROM turns WHERE turn_id = ?", turnId).toArray()[0];
    return row?.forced_side === "a" || row?.forced_side === "b" ? row.forced_side : null;
  }

  /** Keeps the side forced for the turn's next model step, so a restart or a wait does not lose it. */
  setForcedSide(turnId: string, side: "a" | "b"): void {
    this.sql.exec("UPDATE turns SET forced_side = ? WHERE turn_id = ?", side, turnId);
  }

  /** Appends a model step's record (the step took any forced side), with the open step when given, in one write; returns the turn's usage so far. */
  recordModelStep(turnId: string, record: ModelStepRecord, count?: number, pending?: readonly unknown[] | null): TokenUsage {
    const steps = [...this.modelSteps(turnId), record];
    const set = "model_steps = ?1, steps = COALESCE(?2, steps), forced_side = NULL, pending_step = IIF(?3, ?4, pending_step)";
    this.sql.exec(`UPDATE turns SET ${set} WHERE turn_id = ?5`, JSON.stringify(steps), count ?? null, pending === undefined ? 0 : 1, pending ? JSON.stringify(pending) : null, turnId);
    return stepsUsage(steps);
  }

  stepUsage(turnId: string): TokenUsage {
    return stepsUsage(this.modelSteps(turnId));
  }

  private modelSteps(turnId: string): ModelStepRecord[] {
    const row = this.sql.exec<{ model_steps: string | null }>("SELECT model_steps FROM turns WHERE turn_id = ?", turnId).toArray()[0];
    return row?.model_steps ? (JSON.parse(row.model_steps) as ModelStepRecord[]) : [];
  }

  step(turnId: string, steps: number): void {
    this.sql.exec("UPDATE turns SET steps = ? WHERE turn_id = ?", steps, turnId);
  }

  end(turnId: string, status: Exclude<TurnStatus, "running" | "waiting">, error?: string, errorCode?: TurnErrorCode): void {
    this.newest = undefined;
    this.sql.exec(
      "UPDATE turns SET status = ?, finished_at = ?, error = ?, error_code = ? WHERE turn_id = ?",
      status,
      Date.now(),
      error ?? null,
      errorCode ?? null,
      turnId,
    );
  }

  /** A turn's status, or undefined for an unknown id. */
  statusOf(turnId: string): TurnStatus | undefined {
    return this.sql.exec<{ status: string }>("SELECT status FROM turns WHERE turn_id = ?", turnId).toArray()[0]?.status as TurnStatus | undefined;
  }

  /** The newest turn's status (one column of one row), if any. */
  latestStatus(): TurnStatus | undefined {
    if (this.newest === undefined) {
      this.newest = (this.sql.exec<{ status: string }>(NEWEST_STATUS_SQL).toArray()[0]?.status as TurnStatus | undefined) ?? null;
    }
    return this.newest ?? undefined;
  }

  /** The newest turn, if any. */
  latest(): TurnRecord | undefined {
    const row = this.sql.exec<TurnRow>(`SELECT ${TURN_RECORD_COLUMNS} FROM turns ORDER BY ord DESC LIMIT 1`).toArray()[0];
    return row ? turnRecordOf(row) : undefined;
  }

  first(): FirstTurn | undefined {
    const row = this.sql.exec<{ turn_id: string; status: TurnStatus; error: string | null; after: number; until: number | null }>(FIRST_TURN_SQL).toArray()[0];
    if (!row) return undefined;
    return { turnId: row.turn_id, status: row.status, ...(row.error !== null ? { error: row.error } : {}), messages: { after: row.after, until: row.until } };
  }

  requestStop(turnId: string, reason: string): void {
    this.sql.exec("UPDATE turns SET stop_requested = ? WHERE turn_id = ?", reason, turnId);
  }

  stopRequested(turnId: string): string | undefined {
    return this.sql.exec<{ r: string | null }>("SELECT stop_requested AS r FROM turns WHERE turn_id = ?", turnId).toArray()[0]?.r ?? undefined;
  }

  /** Queues a message for the next turn. */
  enqueue(message: Omit<PendingMessage, "id">, now = Date.now()): number {
    const metadata = message.metadata ? JSON.stringify(message.metadata) : null;
    this.lastInboxId = this.sql.exec<{ id: number }>(INBOX_INSERT_SQL, this.lastInboxId, message.role, message.content, metadata, now).one().id;
    return this.lastInboxId;
  }

  /** The newest inbox id this instance gave (see INBOX_INSERT_SQL). */
  private lastInboxId = 0;

  /** Every pending message, oldest first, left in the inbox. */
  inbox(): PendingMessage[] {
    return this.sql.exec<InboxRow>(INBOX_SQL).toArray().map(pendingOf);
  }

  /** Removes pending messages by id (they joined the history, or a hook refused them). */
  dropInbox(ids: readonly number[]): { dropped: number; stopAsked?: string } {
    // A stop kept with a row goes with it, to the caller.
    this.stopsKept ??= this.sql.exec("SELECT 1 FROM inbox_stops LIMIT 1").toArray().length > 0;
    let dropped = 0;
    let stopAsked: string | undefined;
    for (const id of ids) {
      dropped += this.sql.exec("DELETE FROM inbox WHERE id = ?", id).rowsWritten;
      if (this.stopsKept) stopAsked = this.sql.exec<{ reason: string }>("DELETE FROM inbox_stops WHERE id = ? RETURNING reason", id).toArray()[0]?.reason ?? stopAsked;
    }
    return { dropped, ...(stopAsked !== undefined ? { stopAsked } : {}) };
  }

  /** Whether `inbox_stops` may hold a row (read once, then kept: only this class adds to it). */
  private stopsKept: boolean | undefined;

  stopAdmission(ids: readonly number[], reason: string): void {
    this.stopsKept = true;
    for (const id of ids) this.sql.exec("INSERT OR REPLACE INTO inbox_stops (id, reason) SELECT id, ? FROM inbox WHERE id = ?", reason, id);
  }

  inboxSize(): number {
    return this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM inbox").one().n;
  }
}
