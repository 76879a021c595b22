/**
 * A thread's background runs in its SQLite database: one row per run, whose move from `running`
 * to its end is the delivery of its completion (committed with the message it posts). The table
 * comes with the thread's migrations ({@link BACKGROUND_RUNS_DDL}) and goes with its rows.
 * @module
 */
import type { RunInfo } from "../run/world.js";

/**
 * The runs' table and the index of the open ones: a migration, so every migrated thread has it.
 * Made on first use instead, a thread that never ran one answered "no" to the schema lookup of
 * the schema lookup that `RunStore.ready` then made on every call that armed its alarm (a scan
 * of every table and index, about 48 rows read per call).
 */
export const BACKGROUND_RUNS_DDL = `CREATE TABLE IF NOT EXISTS background_runs (
  run_id TEXT PRIMARY KEY, call_id TEXT NOT NULL, agent_id TEXT NOT NULL, child_thread_id TEXT NOT NULL,
  status TEXT NOT NULL, answer TEXT, error TEXT, started_at INTEGER NOT NULL, finished_at INTEGER, check_at INTEGER
);
CREATE INDEX IF NOT EXISTS background_runs_open ON background_runs (check_at) WHERE status = 'running';`;

type Raw = { run_id: string; agent_id: string; child_thread_id: string; status: string; answer: string | null; error: string | null; started_at: number; finished_at: number | null };
const COLUMNS = "run_id, agent_id, child_thread_id, status, answer, error, started_at, finished_at";

const infoOf = (r: Raw): RunInfo => ({
  runId: r.run_id,
  agentId: r.agent_id,
  childThreadId: r.child_thread_id,
  status: r.status as RunInfo["status"],
  ...(r.answer !== null ? { answer: r.answer } : {}),
  ...(r.error !== null ? { error: r.error } : {}),
  startedAt: new Date(r.started_at).toISOString(),
  ...(r.finished_at !== null ? { finishedAt: new Date(r.finished_at).toISOString() } : {}),
});

/** How a run ended, as its completion delivers it. */
export interface RunEnd {
  status: "completed" | "failed" | "stopped";
  answer: string;
  error?: string;
}

/** When a running run's child is to be asked next (epoch ms, null: none runs): one index lookup. */
const NEXT_CHECK_SQL = "SELECT MIN(check_at) AS t FROM background_runs WHERE status = 'running'";

const WAKE_SQL: readonly string[] = [NEXT_CHECK_SQL];

/** The background runs table of one thread. */
export class RunStore {
  /** The store's part of a waking thread's one read (`ThreadStore.wake`); its answer goes to {@link RunStore.knowAtWake}. */
  readonly wakeSql = WAKE_SQL;

  /** `hasTables`: whether the thread's tables exist now (a thread never made, or removed, has none). */
  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly hasTables: () => boolean,
  ) {}

  private get sql(): SqlStorage {
    return this.storage.sql;
  }

  /** Whether the table exists: in every migrated thread, not in a removed one (its rows and tables are gone) or one never made. */
  private get ready(): boolean {
    return this.hasTables();
  }

  /** Takes the answer to {@link RunStore.wakeSql}: the next time a run's child is asked. */
  knowAtWake([next]: readonly SqlStorageValue[]): void {
    this.nextKnown = (next ?? null) as number | null;
  }

  /** Drops what it learnt of the rows; call after the thread's rows were removed (`deleteAll`). */
  forget(): void {
    this.nextKnown = undefined;
  }

  /**
   * `nextCheck()` as this instance last read it (undefined: not known). Every write to the table
   * goes through this store, so each one drops it: the alarm, armed on every few calls and fired
   * after them, then reads no index for a thread without background runs.
   */
  private nextKnown: number | null | undefined = undefined;

  /** Runs `fn` in one transaction. */
  atomically<T>(fn: () => T): T {
    try {
      return this.storage.transactionSync(fn);
    } catch (e) {
      // Rolled back: what was learnt inside may be undone.
      this.nextKnown = undefined;
      throw e;
    }
  }

  /** Records a started run (`checkAt`: when to ask its child first, epoch ms); a repeat changes nothing. */
  insert(runId: string, callId: string, agentId: string, childThreadId: string, now: number, checkAt: number): void {
    this.nextKnown = undefined;
    this.sql.exec("INSERT OR IGNORE INTO background_runs (run_id, call_id, agent_id, child_thread_id, status, started_at, check_at) VALUES (?, ?, ?, ?, 'running', ?, ?)", runId, callId, agentId, childThreadId, now, checkAt);
  }

  get(runId: string): RunInfo | undefined {
    if (!this.ready) return undefined;
    const r = this.sql.exec<Raw>(`SELECT ${COLUMNS} FROM background_runs WHERE run_id = ?`, runId).toArray()[0];
    return r ? infoOf(r) : undefined;
  }

  /** Runs, newest first. */
  list(limit: number): RunInfo[] {
    if (!this.ready) return [];
    return this.sql.exec<Raw>(`SELECT ${COLUMNS} FROM background_runs ORDER BY started_at DESC, run_id DESC LIMIT ?`, limit).toArray().map(infoOf);
  }

  /** Running runs, the longest unasked first (at most `limit`). */
  open(limit: number): RunInfo[] {
    if (!this.ready) return [];
    return this.sql.exec<Raw>(`SELECT ${COLUMNS} FROM background_runs WHERE status = 'running' ORDER BY check_at LIMIT ?`, limit).toArray().map(infoOf);
  }

  /** How many runs are running. */
  openCount(): number {
    if (!this.ready) return 0;
    return this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM background_runs WHERE status = 'running'").one().n;
  }

  /** When a running run's child is to be asked next (epoch ms), or null when none runs: one index lookup. */
  nextCheck(): number | null {
    if (this.nextKnown !== undefined) return this.nextKnown;
    if (!this.ready) return null;
    this.nextKnown = this.sql.exec<{ t: number | null }>(NEXT_CHECK_SQL).one().t;
    return this.nextKnown;
  }

  /** Asks a running run's child again at `at` (epoch ms). */
  checkAt(runId: string, at: number): void {
    this.nextKnown = undefined;
    this.sql.exec("UPDATE background_runs SET check_at = ? WHERE run_id = ? AND status = 'running'", at, runId);
  }

  /** Ends a running run; false (nothing written) when it ended already: its completion is delivered once. */
  finish(runId: string, end: RunEnd, now: number): boolean {
    this.nextKnown = undefined;
    return this.sql.exec("UPDATE background_runs SET status = ?, answer = ?, error = ?, finished_at = ?, check_at = NULL WHERE run_id = ? AND status = 'running'", end.status, end.answer, end.error ?? null, now, runId).rowsWritten > 0;
  }
}
