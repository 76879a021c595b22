/**
 * The thread's `turns` table and its inbox (with the stops kept with inbox rows): the DDL of the
 * migrations that shape them, and the statements and row reading their store shares. Migration v27 rebuilds it so `ord`
 * (the turn's number, 1, 2, ...) is the rowid, so a new turn's row enters two b-trees (the table
 * and its `turn_id` key) instead of three (`turns_by_ord` goes: the newest turn is the last
 * rowid); rows keep their order, `ord` renumbered 1..n in it, every column kept as it was.
 * @module
 */
import type { ModelStepRecord, TurnErrorCode } from "../protocol.js";
import type { PendingMessage, TurnRecord, TurnStatus } from "../ports/store.js";
import { stepsUsage } from "../usage/totals.js";

const COLUMNS = "turn_id, status, steps, started_at, finished_at, error, pending_step, model_steps, model_request, error_code, forced_side, model_settings";

/** Whether a turn in `status` has not ended: it runs, waits for a person, or was cut by a restart. */
export const isUnfinished = (status: TurnStatus | undefined): boolean => status === "running" || status === "waiting";

/** DDL of v27 (see the module). */
export const TURNS_BY_ROWID_DDL = `
  CREATE TABLE turns_v27 (
    ord INTEGER PRIMARY KEY,
    turn_id TEXT UNIQUE,
    status TEXT NOT NULL,
    steps INTEGER NOT NULL DEFAULT 0,
    started_at INTEGER NOT NULL,
    finished_at INTEGER,
    error TEXT,
    pending_step TEXT,
    model_steps TEXT,
    model_request TEXT,
    error_code TEXT,
    forced_side TEXT,
    model_settings TEXT
  );
  INSERT INTO turns_v27 (ord, ${COLUMNS}) SELECT ROW_NUMBER() OVER (ORDER BY ord, rowid), ${COLUMNS} FROM turns;
  DROP TABLE turns;
  ALTER TABLE turns_v27 RENAME TO turns;
`;

/** DDL of v28: the newest message id when a turn began, so a turn's own answer is told from a later turn's ({@link FIRST_TURN_SQL}). */
export const TURN_MESSAGES_DDL = "ALTER TABLE turns ADD COLUMN messages_before INTEGER;";

/**
 * The first turn, and the ids of its own messages: above its `messages_before`, up to the next
 * turn's. A turn begun before v28 has none: the first turn's range starts at the first message,
 * and a later turn's bound is the message it began with (the last user or system message made by
 * then: the model's messages come after it).
 */
export const FIRST_TURN_SQL = `
  SELECT turn_id, status, error, COALESCE(messages_before, 0) AS after,
    (SELECT COALESCE(messages_before, (SELECT MAX(id) FROM messages WHERE depth = 0 AND role IN ('user', 'system') AND created_at <= later.started_at))
     FROM turns AS later WHERE later.ord > first.ord ORDER BY later.ord LIMIT 1) AS until
  FROM turns AS first ORDER BY ord LIMIT 1`;

/** DDL of v29: a stop asked of an unfinished turn, kept with it so a restart before the turn ends does not lose it (`TurnTable.requestStop`). */
export const TURN_STOP_DDL = "ALTER TABLE turns ADD COLUMN stop_requested TEXT;";

/**
 * DDL of v30: a stop asked of the turn that inbox rows being admitted will begin, kept with them
 * until it does (`Inbox.stopAdmission`); a table of its own, so a test that sets the schema
 * version back finds it made already.
 */
export const INBOX_STOP_DDL = "CREATE TABLE IF NOT EXISTS inbox_stops (id INTEGER PRIMARY KEY, reason TEXT NOT NULL);";

/** Counts a request of model step ?1 of turn ?2 in one statement: 1 for the step's first, one more for each cut before its answer was stored. */
export const COUNT_REQUEST_SQL = `
  UPDATE turns SET model_request = json_object('step', ?1, 'count',
    CASE WHEN json_extract(model_request, '$.step') = ?1 THEN json_extract(model_request, '$.count') + 1 ELSE 1 END)
  WHERE turn_id = ?2 RETURNING json_extract(model_request, '$.count') AS count`;

/** The columns of a turn's record, as {@link turnRecordOf} reads them. */
export const TURN_RECORD_COLUMNS = "turn_id, status, steps, started_at, finished_at, error, error_code, model_steps, model_settings";

/** A row of {@link TURN_RECORD_COLUMNS}. */
export type TurnRow = { turn_id: string; status: string; steps: number; started_at: number; finished_at: number | null } & Record<"error" | "error_code" | "model_steps" | "model_settings", string | null>;

/** A turn's record from its row (usage summed over its model steps). */
export function turnRecordOf(row: TurnRow): TurnRecord {
  const turn: TurnRecord = { turnId: row.turn_id, status: row.status as TurnStatus, steps: row.steps, startedAt: row.started_at };
  if (row.finished_at !== null) turn.finishedAt = row.finished_at;
  if (row.error !== null) turn.error = row.error;
  if (row.error_code !== null) turn.errorCode = row.error_code as TurnErrorCode;
  if (row.model_settings !== null) turn.modelSettings = JSON.parse(row.model_settings) as TurnRecord["modelSettings"];
  if (row.model_steps) {
    turn.modelSteps = JSON.parse(row.model_steps) as ModelStepRecord[];
    turn.usage = stepsUsage(turn.modelSteps);
  }
  return turn;
}

/**
 * Queues a message (?2 to ?5: role, content, metadata, created_at) under an id this instance never
 * gave before (?1: the newest it gave), where SQLite alone gives the newest gone row's id again:
 * an admission under way holds its rows' ids, and a schedule's cancel may delete one of them under
 * it. Across a restart no such hold is left, and a stop kept with a row goes with it.
 */
export const INBOX_INSERT_SQL =
  "INSERT INTO inbox (id, role, content, metadata, created_at) VALUES (MAX(?1, (SELECT COALESCE(MAX(id), 0) FROM inbox)) + 1, ?2, ?3, ?4, ?5) RETURNING id";

/** Every pending message with the stop kept with it, oldest first, as {@link pendingOf} reads them. */
export const INBOX_SQL = "SELECT id, role, content, metadata, (SELECT reason FROM inbox_stops WHERE inbox_stops.id = inbox.id) AS stop FROM inbox ORDER BY id";

/** A row of {@link INBOX_SQL}. */
export type InboxRow = { id: number; role: string; content: string; metadata: string | null; stop: string | null };

/** A pending message from its row. */
export function pendingOf(r: InboxRow): PendingMessage {
  const m: PendingMessage = { id: r.id, role: r.role as PendingMessage["role"], content: r.content };
  if (r.metadata !== null) m.metadata = JSON.parse(r.metadata) as Record<string, unknown>;
  if (r.stop !== null) m.stopRequested = r.stop;
  return m;
}
