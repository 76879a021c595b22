/**
 * Secret values an account no longer holds (replaced or deleted), which the owner's threads keep
 * redacting. A call record keeps the input as the tool got it (its result is stored redacted) and
 * is redacted as it leaves, so a rotated key would otherwise show again once it stopped being a secret.
 * @module
 */
import { byteLength } from "../bytes.js";
import type { EnvType } from "../protocol.js";

/** The table of retired values: each once, with when it was retired (ms since the epoch). */
export const RETIRED_SECRETS_SCHEMA = "CREATE TABLE IF NOT EXISTS account_env_retired (value TEXT PRIMARY KEY, retired_at INTEGER NOT NULL);";

/** Retired values kept, newest first: every thread of the owner reads them with the env values. */
export const MAX_RETIRED_SECRETS = 32;

/** Bytes of UTF-8 the kept retired values take together at most; older ones go first. */
export const MAX_RETIRED_SECRET_BYTES = 1024 * 1024;

/** One account's retired secret values, in its SQLite storage. */
export class RetiredSecrets {
  constructor(private readonly sql: SqlStorage) {}

  /**
   * Records a change of one env entry (`after` undefined: deleted). A secret whose value leaves is
   * retired; the same value kept (a retry, or the owner making it `text` on purpose) is not, and a
   * value the owner now sets as `text` is shown again.
   */
  change(before: { value: string; type: EnvType } | undefined, after: { value: string; type: EnvType } | undefined): void {
    if (after?.type === "text") this.sql.exec("DELETE FROM account_env_retired WHERE value = ?", after.value);
    if (before?.type !== "secret" || before.value === after?.value) return;
    this.sql.exec("INSERT OR REPLACE INTO account_env_retired (value, retired_at) VALUES (?, ?)", before.value, Date.now());
    let bytes = 0;
    const rows = this.sql.exec<{ value: string }>("SELECT value FROM account_env_retired ORDER BY retired_at DESC, rowid DESC").toArray();
    rows.forEach((row, i) => {
      bytes += byteLength(row.value);
      if (i >= MAX_RETIRED_SECRETS || bytes > MAX_RETIRED_SECRET_BYTES) this.sql.exec("DELETE FROM account_env_retired WHERE value = ?", row.value);
    });
  }

  /** Every retired value, newest first. */
  all(): string[] {
    return this.sql.exec<{ value: string }>("SELECT value FROM account_env_retired ORDER BY retired_at DESC, rowid DESC").toArray().map((r) => r.value);
  }
}
