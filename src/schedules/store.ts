/**
 * A thread's schedules and their occurrences in its SQLite database (migration in
 * src/thread/store/migrations.ts, v17). The due-time index (`schedules_by_fire`, over active rows
 * only) answers the earliest due time and the next due schedule in O(log n), however many
 * schedules the thread holds. An occurrence's row, keyed `scheduleId:dueAt`, is its journal
 * entry: written before its work starts, never written twice.
 * @module
 */
import type { ScheduleSpec } from "./define.js";
import type { OccurrenceRow, ScheduleRow, ScheduleStatus } from "./rows.js";

/**
 * The tables of schedules and occurrences (the thread's migration v17). The index over active
 * rows' fire times answers the earliest due schedule in O(log n).
 */
export const SCHEDULES_DDL = `
  CREATE TABLE IF NOT EXISTS schedules (
    id TEXT PRIMARY KEY, spec TEXT NOT NULL, owner TEXT, status TEXT NOT NULL, anchor INTEGER NOT NULL,
    next_due INTEGER, fire_at INTEGER, created_at INTEGER NOT NULL, ended_at INTEGER
  );
  CREATE INDEX IF NOT EXISTS schedules_by_fire ON schedules (fire_at) WHERE status = 'active';
  CREATE TABLE IF NOT EXISTS occurrences (
    key TEXT PRIMARY KEY, schedule_id TEXT NOT NULL, due_at INTEGER NOT NULL, status TEXT NOT NULL,
    call_id TEXT, created_at INTEGER NOT NULL, finished_at INTEGER, outcome TEXT
  );
  CREATE INDEX IF NOT EXISTS occurrences_open ON occurrences (schedule_id, due_at) WHERE status IN ('queued', 'started');
  CREATE INDEX IF NOT EXISTS occurrences_by_schedule ON occurrences (schedule_id, due_at);
`;

/**
 * The index the list's pages walk (the thread's migration v22): in creation order, so a page reads
 * its own rows one by one, never sorting every schedule (and its input) of the thread first.
 */
export const SCHEDULES_BY_CREATION_DDL = "CREATE INDEX IF NOT EXISTS schedules_by_creation ON schedules (created_at, id)";

type RawSchedule = { id: string; spec: string; owner: string | null; status: string; anchor: number; next_due: number | null; fire_at: number | null; created_at: number };
type RawOccurrence = { key: string; schedule_id: string; due_at: number; status: string; call_id: string | null };

const SCHEDULE_COLUMNS = "id, spec, owner, status, anchor, next_due, fire_at, created_at";
const OCCURRENCE_COLUMNS = "key, schedule_id, due_at, status, call_id";

const scheduleOf = (r: RawSchedule): ScheduleRow => ({
  id: r.id,
  spec: JSON.parse(r.spec) as ScheduleSpec,
  owner: r.owner,
  status: r.status as ScheduleStatus,
  anchor: r.anchor,
  nextDue: r.next_due,
  fireAt: r.fire_at,
  createdAt: r.created_at,
});
const occurrenceOf = (r: RawOccurrence): OccurrenceRow => ({ key: r.key, scheduleId: r.schedule_id, dueAt: r.due_at, status: r.status as OccurrenceRow["status"], callId: r.call_id });

/** The earliest time an active schedule fires (epoch ms, null: none): one index lookup. */
const EARLIEST_SQL = "SELECT MIN(fire_at) AS t FROM schedules WHERE status = 'active'";
/** An occurrence journaled but not finished. */
const OPEN_WHERE = "status IN ('queued', 'started')";

const WAKE_SQL: readonly string[] = [EARLIEST_SQL, `SELECT 1 FROM occurrences WHERE ${OPEN_WHERE} LIMIT 1`];

/** The schedules tables of one thread. */
export class ScheduleStore {
  /**
   * The store's part of a waking thread's one read (`ThreadStore.wake`): scalar queries whose
   * answers, in order, go to {@link ScheduleStore.knowAtWake}.
   */
  readonly wakeSql = WAKE_SQL;

  /** `hasTables`: whether the thread's tables exist now (a thread never made, or removed, has none). */
  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly hasTables: () => boolean,
  ) {}

  private get sql(): SqlStorage {
    return this.storage.sql;
  }

  /** Runs `fn` in one transaction: its rows commit together or not at all. */
  atomically<T>(fn: () => T): T {
    try {
      return this.storage.transactionSync(fn);
    } catch (e) {
      // Rolled back: what was learnt inside may be undone.
      this.unknown();
      throw e;
    }
  }

  /**
   * `earliest()` as this instance last read it (undefined: not known), and whether no occurrence
   * is open. Every write to these tables goes through this store, in this one instance, so each
   * write that could change them drops what is kept: the alarm, armed on every few calls and
   * fired after them, then reads no index for a thread without schedules.
   */
  private earliestKnown: number | null | undefined = undefined;
  private noneOpen = false;

  /** Takes the answers to {@link ScheduleStore.wakeSql}: the earliest fire time, and whether an occurrence is open. */
  knowAtWake([earliest, open]: readonly SqlStorageValue[]): void {
    this.earliestKnown = (earliest ?? null) as number | null;
    this.noneOpen = open === null;
  }

  private unknown(): void {
    this.earliestKnown = undefined;
    this.noneOpen = false;
  }

  /** Whether the tables exist: in a made thread (which its migrations gave them), not before nor after its removal. */
  get ready(): boolean {
    return this.hasTables();
  }

  /** Forgets what it learnt of the rows (the thread's rows were removed). */
  forget(): void {
    this.unknown();
  }

  insert(row: ScheduleRow): void {
    this.sql.exec(
      `INSERT INTO schedules (${SCHEDULE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      row.id,
      JSON.stringify(row.spec),
      row.owner,
      row.status,
      row.anchor,
      row.nextDue,
      row.fireAt,
      row.createdAt,
    );
    this.earliestKnown = undefined;
  }

  get(id: string): ScheduleRow | undefined {
    if (!this.ready) return undefined;
    const r = this.sql.exec<RawSchedule>(`SELECT ${SCHEDULE_COLUMNS} FROM schedules WHERE id = ?`, id).toArray()[0];
    return r ? scheduleOf(r) : undefined;
  }

  /**
   * Schedules in creation order after the schedule `after` (from the first without it), read one
   * row at a time while `take` wants more: a page never holds more rows in memory than it answers.
   * @returns false when `after` names no schedule of this thread.
   */
  each(after: string | undefined, take: (row: ScheduleRow) => boolean): boolean {
    if (!this.ready) return after === undefined;
    let from: { created_at: number; id: string } | undefined;
    if (after !== undefined) {
      from = this.sql.exec<{ created_at: number; id: string }>("SELECT created_at, id FROM schedules WHERE id = ?", after).toArray()[0];
      if (!from) return false;
    }
    const rows = from
      ? this.sql.exec<RawSchedule>(`SELECT ${SCHEDULE_COLUMNS} FROM schedules WHERE (created_at, id) > (?, ?) ORDER BY created_at, id`, from.created_at, from.id)
      : this.sql.exec<RawSchedule>(`SELECT ${SCHEDULE_COLUMNS} FROM schedules ORDER BY created_at, id`);
    for (const r of rows) if (!take(scheduleOf(r))) break;
    return true;
  }

  /** The schedules whose id starts with `prefix`, any status (a file schedule's versions). */
  withPrefix(prefix: string): ScheduleRow[] {
    if (!this.ready) return [];
    return this.sql.exec<RawSchedule>(`SELECT ${SCHEDULE_COLUMNS} FROM schedules WHERE substr(id, 1, ?) = ? ORDER BY created_at, id`, prefix.length, prefix).toArray().map(scheduleOf);
  }

  /** How many schedules are active. */
  activeCount(): number {
    if (!this.ready) return 0;
    return this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM schedules WHERE status = 'active'").one().n;
  }

  /** The earliest time an active schedule fires (epoch ms), or null: one index lookup. */
  earliest(): number | null {
    if (this.earliestKnown !== undefined) return this.earliestKnown;
    if (!this.ready) return null;
    this.earliestKnown = this.sql.exec<{ t: number | null }>(EARLIEST_SQL).one().t;
    return this.earliestKnown;
  }

  /** The active schedule that fires first, when it fires at or before `now`. */
  firstDue(now: number): ScheduleRow | undefined {
    const first = this.earliest();
    if (first === null || first > now) return undefined;
    const r = this.sql.exec<RawSchedule>(`SELECT ${SCHEDULE_COLUMNS} FROM schedules WHERE status = 'active' AND fire_at <= ? ORDER BY fire_at LIMIT 1`, now).toArray()[0];
    return r ? scheduleOf(r) : undefined;
  }

  /** Moves a schedule on to its next occurrence; none left ends it `done`. */
  advance(id: string, nextDue: number | null, fireAt: number | null, now: number): void {
    this.earliestKnown = undefined;
    if (nextDue === null) this.sql.exec("UPDATE schedules SET status = 'done', next_due = NULL, fire_at = NULL, ended_at = ? WHERE id = ?", now, id);
    else this.sql.exec("UPDATE schedules SET next_due = ?, fire_at = ? WHERE id = ?", nextDue, fireAt, id);
  }

  /**
   * Ends a schedule `cancelled`, with what of it has not started: its queued occurrences, and an
   * agent target's messages still waiting in the thread's inbox (no turn has taken them: a turn
   * takes its messages out of the inbox as it starts). Whether it was active.
   */
  cancel(id: string, now: number): boolean {
    this.earliestKnown = undefined;
    const changed = this.sql.exec("UPDATE schedules SET status = 'cancelled', fire_at = NULL, ended_at = ? WHERE id = ? AND status = 'active'", now, id).rowsWritten > 0;
    this.sql.exec("UPDATE occurrences SET status = 'cancelled', finished_at = ? WHERE schedule_id = ? AND status = 'queued'", now, id);
    this.dropMessages(id, now);
    return changed;
  }

  /** Takes a schedule's waiting messages out of the inbox; their occurrences end `cancelled`. */
  private dropMessages(id: string, now: number): void {
    const waiting = "FROM inbox WHERE metadata IS NOT NULL AND json_extract(metadata, '$.scheduleId') = ?";
    this.sql.exec(`UPDATE occurrences SET status = 'cancelled', finished_at = ? WHERE key IN (SELECT json_extract(metadata, '$.occurrence') ${waiting})`, now, id);
    // A stop kept with a row goes with it (an inbox id is reused once the newest row is gone).
    this.sql.exec(`DELETE FROM inbox_stops WHERE id IN (SELECT id ${waiting})`, id);
    this.sql.exec(`DELETE ${waiting}`, id);
  }

  /**
   * Ends an active schedule `done` as its deployment dropped it (a file schedule a deploy removed
   * or changed), with its queued occurrences; whether it was active. Unlike `cancel`, a file
   * brought back may `reopen` it.
   */
  end(id: string, now: number): boolean {
    this.earliestKnown = undefined;
    const changed = this.sql.exec("UPDATE schedules SET status = 'done', next_due = NULL, fire_at = NULL, ended_at = ? WHERE id = ? AND status = 'active'", now, id).rowsWritten > 0;
    this.sql.exec("UPDATE occurrences SET status = 'cancelled', finished_at = ? WHERE schedule_id = ? AND status = 'queued'", now, id);
    this.dropMessages(id, now);
    return changed;
  }

  /** Starts a `done` schedule again, counting from `anchor` (epoch ms); whether it was done. */
  reopen(id: string, anchor: number, nextDue: number, fireAt: number): boolean {
    this.earliestKnown = undefined;
    return this.sql.exec("UPDATE schedules SET status = 'active', anchor = ?, next_due = ?, fire_at = ?, ended_at = NULL WHERE id = ? AND status = 'done'", anchor, nextDue, fireAt, id).rowsWritten > 0;
  }

  /** The occurrence journaled under `key`. */
  occurrence(key: string): OccurrenceRow | undefined {
    if (!this.ready) return undefined;
    const r = this.sql.exec<RawOccurrence>(`SELECT ${OCCURRENCE_COLUMNS} FROM occurrences WHERE key = ?`, key).toArray()[0];
    return r ? occurrenceOf(r) : undefined;
  }

  /**
   * Journals an occurrence; false (and nothing written) when its key is journaled already, so
   * a second evaluation of the same occurrence never starts it again.
   */
  journal(o: OccurrenceRow, now: number): boolean {
    this.noneOpen = false;
    return this.sql.exec(`INSERT OR IGNORE INTO occurrences (${OCCURRENCE_COLUMNS}, created_at) VALUES (?, ?, ?, ?, ?, ?)`, o.key, o.scheduleId, o.dueAt, o.status, o.callId, now).rowsWritten > 0;
  }

  /** Moves an occurrence on (`started` from `queued`, or to its end with `outcome`). */
  mark(key: string, status: OccurrenceRow["status"], now: number, outcome?: string): void {
    const end = status === "queued" || status === "started" ? null : now;
    if (end === null) this.noneOpen = false;
    this.sql.exec("UPDATE occurrences SET status = ?, finished_at = ?, outcome = COALESCE(?, outcome) WHERE key = ?", status, end, outcome ?? null, key);
  }

  /** Open occurrences (`queued` or `started`), oldest first; of one schedule when `scheduleId` is given. */
  open(limit: number, scheduleId?: string): OccurrenceRow[] {
    if (this.noneOpen || !this.ready) return [];
    const rows = scheduleId
      ? this.sql.exec<RawOccurrence>(`SELECT ${OCCURRENCE_COLUMNS} FROM occurrences WHERE ${OPEN_WHERE} AND schedule_id = ? ORDER BY due_at LIMIT ?`, scheduleId, limit)
      : this.sql.exec<RawOccurrence>(`SELECT ${OCCURRENCE_COLUMNS} FROM occurrences WHERE ${OPEN_WHERE} ORDER BY due_at LIMIT ?`, limit);
    const open = rows.toArray().map(occurrenceOf);
    if (!scheduleId && open.length === 0) this.noneOpen = true;
    return open;
  }

  /** Occurrences of a schedule, newest first (for tests and the API's history). */
  occurrences(scheduleId: string, limit = 100): OccurrenceRow[] {
    if (!this.ready) return [];
    return this.sql.exec<RawOccurrence>(`SELECT ${OCCURRENCE_COLUMNS} FROM occurrences WHERE schedule_id = ? ORDER BY due_at DESC LIMIT ?`, scheduleId, limit).toArray().map(occurrenceOf);
  }

  /**
   * Forgets a schedule's ended occurrences beyond its newest `keep`, so a schedule that runs for
   * years keeps a bounded journal. Safe for exactly once: a schedule only moves forward, so an
   * occurrence older than its newest is never evaluated again.
   */
  prune(scheduleId: string, keep: number): void {
    const edge = this.sql.exec<{ due_at: number }>("SELECT due_at FROM occurrences WHERE schedule_id = ? ORDER BY due_at DESC LIMIT 1 OFFSET ?", scheduleId, keep - 1).toArray()[0];
    if (edge) this.sql.exec("DELETE FROM occurrences WHERE schedule_id = ? AND due_at < ? AND status IN ('done', 'skipped', 'cancelled')", scheduleId, edge.due_at);
  }

  /** How many messages of the schedule still wait in the thread's inbox (no turn has taken them). */
  messagesWaiting(scheduleId: string): number {
    return this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM inbox WHERE metadata IS NOT NULL AND json_extract(metadata, '$.scheduleId') = ?", scheduleId).one().n;
  }

  /** How many occurrences of the schedule are `queued` (wait behind its started one). */
  queuedCount(scheduleId: string): number {
    return this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM occurrences WHERE schedule_id = ? AND status = 'queued'", scheduleId).one().n;
  }
}
