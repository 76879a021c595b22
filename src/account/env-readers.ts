/**
 * The threads that keep a user's account values (their env values and MCP servers): each is told
 * of every change before the change is acknowledged, so a secret is redacted everywhere from the
 * moment its write returns. A change moves the account's version on; a reader is current once it
 * read the values, or answered a notice, at that version. Telling goes in batches within the
 * subrequest limit (see `tellThreads`): a write with more readers to tell than one request may, or
 * with a reader out of reach, fails retryably having told the others, and its retry tells the rest.
 * @module
 */
import type { EnvReader } from "./api.js";
import { tellThreads } from "./tell.js";

/** The readers' tables: each reader with the version it is current for, and the account's version. */
export const ENV_READERS_SCHEMA = `
  CREATE TABLE IF NOT EXISTS account_env_readers (thread_id TEXT PRIMARY KEY);
  CREATE TABLE IF NOT EXISTS account_env_version (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL);
`;

/** The readers of one account. */
export class EnvReaders {
  constructor(
    private readonly sql: SqlStorage,
    private readonly threads: () => DurableObjectNamespace | undefined,
  ) {
    sql.exec(ENV_READERS_SCHEMA);
    // Readers kept before versions: current for version 0, where every account starts.
    if (sql.exec("SELECT 1 FROM pragma_table_info('account_env_readers') WHERE name = 'told'").toArray().length === 0) {
      sql.exec("ALTER TABLE account_env_readers ADD COLUMN told INTEGER NOT NULL DEFAULT 0");
    }
  }

  /** The version of the account's values now. */
  private version(): number {
    return this.sql.exec<{ version: number }>("SELECT COALESCE(MAX(version), 0) AS version FROM account_env_version").one().version;
  }

  /** `threadId` read the values now: a reader, current. */
  read(threadId: string): void {
    if (!this.threads()) return;
    this.sql.exec("INSERT INTO account_env_readers (thread_id, told) VALUES (?, ?) ON CONFLICT (thread_id) DO UPDATE SET told = excluded.told", threadId, this.version());
  }

  /** `threadId` was removed: nothing to tell it any more. */
  forget(threadId: string): void {
    this.sql.exec("DELETE FROM account_env_readers WHERE thread_id = ?", threadId);
  }

  /** The values changed (in the same step as the change): every reader is to be told again. */
  changed(): void {
    this.sql.exec("INSERT INTO account_env_version (id, version) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET version = version + 1");
  }

  /**
   * Tells every reader not current of the change; a thread that no longer exists stops being one.
   * @throws WeftError `internal_error` (retryable) naming a reader out of reach, or how many are left.
   */
  async tell(): Promise<void> {
    const ns = this.threads();
    if (!ns) return;
    const version = this.version();
    const untold = this.sql.exec<{ thread_id: string }>("SELECT thread_id FROM account_env_readers WHERE told < ?", version).toArray().map((r) => r.thread_id);
    // One more try at once: an object that is restarting answers the second call.
    const notice = async (id: string) => (ns.get(ns.idFromString(id)) as unknown as EnvReader).accountEnvChanged();
    await tellThreads(untold, "of the change to this user's values", (id) => notice(id).catch(() => notice(id)), (told, answers) => {
      told.forEach((id, i) => {
        if (answers[i]!.live) this.sql.exec("UPDATE account_env_readers SET told = MAX(told, ?) WHERE thread_id = ?", version, id);
        else this.forget(id);
      });
    });
  }
}
