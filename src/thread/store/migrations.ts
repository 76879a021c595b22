/**
 * Versioned SQLite migrations for a thread's database. Each entry runs once, in order, inside a
 * transaction; the applied version is kept in `weft_schema`.
 * @module
 */
import { USAGE_REQUESTS_DDL, USAGE_REQUESTS_FAILED_DDL, USAGE_REQUESTS_UNINDEXED_DDL, USAGE_REQUESTS_UNPRICED_DDL } from "../../usage/thread-ledger.js";
import { SCHEDULES_BY_CREATION_DDL, SCHEDULES_DDL } from "../../schedules/store.js";
import { CONTENT_DDL } from "../../content/ddl.js";
import { BACKGROUND_RUNS_DDL } from "../../background/store.js";
import { MESSAGE_COUNTERS_DDL } from "../../run/message-counters.js";
import { INBOX_STOP_DDL, TURNS_BY_ROWID_DDL, TURN_MESSAGES_DDL, TURN_STOP_DDL } from "../../run/turn-table.js";

/** Ordered migrations; append only, never edit a released entry. */
export const MIGRATIONS: readonly string[] = [
  // v1: the foundation tables.
  `
  CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
  CREATE TABLE messages (
    id INTEGER PRIMARY KEY,
    role TEXT NOT NULL,
    content TEXT NOT NULL,
    tool_calls TEXT,
    tool_call_id TEXT,
    name TEXT,
    silent INTEGER NOT NULL DEFAULT 0,
    metadata TEXT,
    created_at INTEGER NOT NULL
  );
  CREATE INDEX messages_by_visibility ON messages (silent, id);
  CREATE TABLE inbox (id INTEGER PRIMARY KEY, role TEXT NOT NULL, content TEXT NOT NULL, metadata TEXT, created_at INTEGER NOT NULL);
  CREATE TABLE kv (key TEXT NOT NULL, chunk INTEGER NOT NULL, data TEXT NOT NULL, PRIMARY KEY (key, chunk));
  CREATE TABLE env (name TEXT PRIMARY KEY, value TEXT NOT NULL, type TEXT NOT NULL);
  CREATE TABLE events (seq INTEGER PRIMARY KEY, type TEXT NOT NULL, data TEXT NOT NULL, at INTEGER NOT NULL);
  CREATE TABLE calls (
    call_id TEXT PRIMARY KEY,
    ord INTEGER NOT NULL,
    tool_name TEXT NOT NULL,
    source TEXT NOT NULL,
    status TEXT NOT NULL,
    args_text TEXT NOT NULL,
    input TEXT,
    result TEXT,
    attempts INTEGER NOT NULL DEFAULT 0,
    effect_key TEXT NOT NULL,
    turn_id TEXT,
    parent_call_id TEXT,
    created_at INTEGER NOT NULL,
    started_at INTEGER,
    finished_at INTEGER,
    duration_ms INTEGER
  );
  CREATE INDEX calls_by_status ON calls (status, ord);
  CREATE TABLE turns (
    turn_id TEXT PRIMARY KEY,
    ord INTEGER NOT NULL,
    status TEXT NOT NULL,
    steps INTEGER NOT NULL DEFAULT 0,
    started_at INTEGER NOT NULL,
    finished_at INTEGER,
    error TEXT
  );
  CREATE TABLE script (id INTEGER PRIMARY KEY, step TEXT NOT NULL, consumed INTEGER NOT NULL DEFAULT 0);
  `,
  // v2: tool-call guarantees (approval, parking, dry-run marks), resumable turns, thread files.
  `
  ALTER TABLE calls ADD COLUMN stubbed INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE calls ADD COLUMN approved_by TEXT;
  ALTER TABLE calls ADD COLUMN park_reason TEXT;
  ALTER TABLE calls ADD COLUMN args_hash TEXT;
  ALTER TABLE calls ADD COLUMN error_code TEXT;
  ALTER TABLE calls ADD COLUMN full_result_path TEXT;
  ALTER TABLE turns ADD COLUMN pending_step TEXT;
  CREATE TABLE files (path TEXT PRIMARY KEY, mime_type TEXT NOT NULL, size INTEGER NOT NULL, chunks INTEGER NOT NULL, created_at INTEGER NOT NULL);
  CREATE TABLE file_chunks (path TEXT NOT NULL, chunk INTEGER NOT NULL, data TEXT NOT NULL, PRIMARY KEY (path, chunk));
  `,
  // v3: structured details of a refusal (`issues` with value paths), kept with the call.
  `
  ALTER TABLE calls ADD COLUMN error_details TEXT;
  `,
  // v4: who denied or settled a call (the verified principal).
  `
  ALTER TABLE calls ADD COLUMN decided_by TEXT;
  `,
  // v5: nested prompt runs store their messages with their depth; two-sided agents mark the side.
  `
  ALTER TABLE messages ADD COLUMN depth INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE messages ADD COLUMN side TEXT;
  CREATE INDEX messages_by_depth ON messages (depth, id);
  `,
  // v6: each model step's model, finish reason, token usage and attempts, per turn.
  `
  ALTER TABLE turns ADD COLUMN model_steps TEXT;
  `,
  // v7: uncertain outcomes, and runs of a call that ended in a restart (crash loops end).
  `
  ALTER TABLE calls ADD COLUMN outcome TEXT;
  ALTER TABLE calls ADD COLUMN restarts INTEGER NOT NULL DEFAULT 0;
  `,
  // v8: every per-call and per-turn lookup an index seek, whatever the thread's age: the next
  // call and turn number, the newest turn, the next unplayed script step.
  `
  CREATE INDEX calls_by_ord ON calls (ord);
  CREATE INDEX turns_by_ord ON turns (ord);
  CREATE INDEX script_unplayed ON script (consumed, id);
  `,
  // v9: compaction summaries of the conversation's older messages (bounded history windows).
  `
  CREATE TABLE history_summaries (
    through_id INTEGER PRIMARY KEY,
    content TEXT NOT NULL,
    tokens INTEGER NOT NULL,
    messages INTEGER NOT NULL,
    model TEXT NOT NULL,
    created_at INTEGER NOT NULL
  );
  `,
  // v10: answers kept per Idempotency-Key, so a retried request replays its first answer; the
  // calls a call queued, found by their parent.
  `
  CREATE TABLE idempotency (
    scoped_key TEXT PRIMARY KEY,
    fingerprint TEXT NOT NULL,
    instance TEXT NOT NULL,
    done INTEGER NOT NULL DEFAULT 0,
    chunks INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL
  );
  CREATE INDEX idempotency_by_age ON idempotency (created_at);
  CREATE TABLE idempotency_chunks (scoped_key TEXT NOT NULL, chunk INTEGER NOT NULL, data TEXT NOT NULL, PRIMARY KEY (scoped_key, chunk));
  CREATE INDEX calls_by_parent ON calls (parent_call_id, ord);
  CREATE INDEX calls_by_turn ON calls (turn_id, status);
  `,
  // v11: which model step a turn last requested and how often (a step cut by restarts again and
  // again ends its turn), the coded reason a turn failed, a side forced for the next step; each
  // nested prompt run's messages found by its call id (an index seek, not a scan of a depth).
  `
  ALTER TABLE turns ADD COLUMN model_request TEXT;
  ALTER TABLE turns ADD COLUMN error_code TEXT;
  ALTER TABLE turns ADD COLUMN forced_side TEXT;
  ALTER TABLE messages ADD COLUMN prompt_call TEXT;
  UPDATE messages SET prompt_call = json_extract(metadata, '$.promptCall') WHERE depth > 0 AND metadata IS NOT NULL;
  CREATE INDEX messages_by_prompt_call ON messages (prompt_call, id) WHERE prompt_call IS NOT NULL;
  `,
  // v12: a direct call has no turn and no parent, so it stays out of the indexes that find calls
  // by them: its journal row and result then write two and one fewer pages per commit. (Queries
  // by turn_id = ? or parent_call_id = ? / IS NOT NULL still seek these indexes.)
  `
  DROP INDEX calls_by_turn;
  CREATE INDEX calls_by_turn ON calls (turn_id, status) WHERE turn_id IS NOT NULL;
  DROP INDEX calls_by_parent;
  CREATE INDEX calls_by_parent ON calls (parent_call_id, ord) WHERE parent_call_id IS NOT NULL;
  `,
  // v13: fewer b-trees for each call row to enter. `ord` becomes the rowid (the table is rebuilt:
  // its order is the table's own, so calls_by_ord goes), and only calls without a result are
  // indexed by status (a read recorded with its result at once enters no status index). Rows keep
  // their order; `ord` is renumbered 1..n in it. Every column and constraint is kept as it was.
  `
  CREATE TABLE calls_v13 (
    ord INTEGER PRIMARY KEY,
    call_id TEXT UNIQUE,
    tool_name TEXT NOT NULL,
    source TEXT NOT NULL,
    status TEXT NOT NULL,
    args_text TEXT NOT NULL,
    input TEXT,
    result TEXT,
    attempts INTEGER NOT NULL DEFAULT 0,
    effect_key TEXT NOT NULL,
    turn_id TEXT,
    parent_call_id TEXT,
    created_at INTEGER NOT NULL,
    started_at INTEGER,
    finished_at INTEGER,
    duration_ms INTEGER,
    stubbed INTEGER NOT NULL DEFAULT 0,
    approved_by TEXT,
    park_reason TEXT,
    args_hash TEXT,
    error_code TEXT,
    full_result_path TEXT,
    error_details TEXT,
    decided_by TEXT,
    outcome TEXT,
    restarts INTEGER NOT NULL DEFAULT 0
  );
  INSERT INTO calls_v13 (ord, call_id, tool_name, source, status, args_text, input, result, attempts, effect_key, turn_id, parent_call_id,
    created_at, started_at, finished_at, duration_ms, stubbed, approved_by, park_reason, args_hash, error_code, full_result_path, error_details,
    decided_by, outcome, restarts)
  SELECT ROW_NUMBER() OVER (ORDER BY ord, rowid), call_id, tool_name, source, status, args_text, input, result, attempts, effect_key, turn_id,
    parent_call_id, created_at, started_at, finished_at, duration_ms, stubbed, approved_by, park_reason, args_hash, error_code,
    full_result_path, error_details, decided_by, outcome, restarts
  FROM calls;
  DROP TABLE calls;
  ALTER TABLE calls_v13 RENAME TO calls;
  CREATE INDEX calls_unfinished ON calls (status) WHERE finished_at IS NULL;
  CREATE INDEX calls_by_turn ON calls (turn_id, status) WHERE turn_id IS NOT NULL;
  CREATE INDEX calls_by_parent ON calls (parent_call_id) WHERE parent_call_id IS NOT NULL;
  `,
  // v14: the env names (with the level that answered) whose secret values thread code received
  // through state.env; only those of a level the owner did not set are redacted (src/secrets/thread-secrets.ts).
  // IF NOT EXISTS: a test may set the version back past it, as call-order-migration.test.ts does.
  `
  CREATE TABLE IF NOT EXISTS env_received (name TEXT NOT NULL, level TEXT NOT NULL, PRIMARY KEY (name, level)) WITHOUT ROWID;
  `,
  // v15: the call ids of a history the thread was created with (POST /threads history): they
  // have no call record, and a later call must not take one (uniqueCallIds in src/run/conversation.ts).
  `
  CREATE TABLE IF NOT EXISTS history_calls (id TEXT PRIMARY KEY);
  `,
  // v16: whether a tool message is an error result, sent to providers that mark one (Anthropic's is_error).
  `
  ALTER TABLE messages ADD COLUMN is_error INTEGER NOT NULL DEFAULT 0;
  `,
  // v17: schedules and the journal of their occurrences, owned by src/schedules/store.ts.
  SCHEDULES_DDL,
  USAGE_REQUESTS_DDL, // v18: one row per answered model request (the usage ledger, src/usage/thread-ledger.ts)
  USAGE_REQUESTS_FAILED_DDL, // v19: failed requests are rows too, marked
  CONTENT_DDL, // v20: a turn's settings from its message, a message's parts (src/content/ddl.ts)
  BACKGROUND_RUNS_DDL, // v21: background runs (src/background/store.ts), made on a thread's first run before
  SCHEDULES_BY_CREATION_DDL, // v22: schedules by creation, so a page of the list reads only its own rows
  USAGE_REQUESTS_UNPRICED_DDL, // v23: rows of models with no price (their cost read back as unknown)
  MESSAGE_COUNTERS_DDL, // v24: only silent and nested messages counted (src/run/message-counters.ts)
  "DELETE FROM script WHERE consumed = 1; DROP INDEX IF EXISTS script_unplayed;", // v25: a played script step is deleted, not marked
  USAGE_REQUESTS_UNINDEXED_DDL, // v26: usage rows unindexed by turn (read whole)
  TURNS_BY_ROWID_DDL, // v27: a turn's number is its rowid (src/run/turn-table.ts)
  TURN_MESSAGES_DDL, // v28: where a turn's messages begin (src/run/turn-table.ts)
  TURN_STOP_DDL, // v29: a stop asked of an unfinished turn
  INBOX_STOP_DDL, // v30: a stop asked of the turn inbox rows begin
  INBOX_STOP_DDL, // v31: again, for a database that took v30's first form (a column, 0b3ea5a)
  "ALTER TABLE calls ADD COLUMN effect TEXT;", // v32: the effect class and setting a call started under, as StartedAs stores it (NULL before), so no redeclaration makes recovery less cautious
  // v33: a row bills once more for each index it enters, so the common rows enter fewer: messages none by visibility
  // (a page reads past the rare silent ones), calls none by turn (turnWaits seeks calls_unfinished).
  "DROP INDEX IF EXISTS messages_by_visibility; DROP INDEX IF EXISTS calls_by_turn;",
];

/**
 * Objects whose database holds weft's tables at the current version in this instance: marked by
 * {@link migrate}, unmarked by {@link deleteAllRows}. Stores whose tables a thread that was never
 * made lacks ask {@link hasTables} instead of scanning `sqlite_master` (one row read per table and
 * index, about 48, on every wake).
 */
const migrated = new WeakSet<DurableObjectStorage>();

/** Whether this object's database holds the thread's tables (it was migrated in this instance and not emptied since). */
export const hasTables = (storage: DurableObjectStorage): boolean => migrated.has(storage);

/** The stored schema version, or null when the database has no thread (never made, or removed). */
function storedVersion(sql: SqlStorage): number | null {
  try {
    return sql.exec<{ version: number }>("SELECT version FROM weft_schema").toArray()[0]?.version ?? 0;
  } catch (e) {
    // One statement instead of a lookup in `sqlite_master` first: only a thread never made lacks the table.
    if (e instanceof Error && /no such table/.test(e.message)) return null;
    throw e;
  }
}

/**
 * Applies every migration newer than the stored version, making the schema table for a new thread.
 * @returns the schema version now in force.
 */
export function migrate(storage: DurableObjectStorage): number {
  const version = storedVersion(storage.sql);
  if (version !== null) return migrateFrom(storage, version);
  storage.sql.exec("CREATE TABLE weft_schema (version INTEGER NOT NULL); INSERT INTO weft_schema (version) VALUES (0)");
  return migrateFrom(storage, 0);
}

/** {@link migrate} for a thread that exists; false (and nothing written) for an object that holds none. */
export function migrateIfMade(storage: DurableObjectStorage): boolean {
  const version = storedVersion(storage.sql);
  if (version === null) return false;
  migrateFrom(storage, version);
  return true;
}

function migrateFrom(storage: DurableObjectStorage, from: number): number {
  const sql = storage.sql;
  let version = from;
  while (version < MIGRATIONS.length) {
    const next = version + 1;
    storage.transactionSync(() => {
      sql.exec(MIGRATIONS[next - 1]!);
      sql.exec("UPDATE weft_schema SET version = ?", next);
    });
    version = next;
  }
  migrated.add(storage);
  return version;
}

/** Removes every row and table of the object (`deleteAll`); from its start no store finds the thread's tables. */
export async function deleteAllRows(storage: DurableObjectStorage): Promise<void> {
  migrated.delete(storage);
  await storage.deleteAll();
}
