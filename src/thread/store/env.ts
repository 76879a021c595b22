/**
 * Thread-scoped environment values (the Standard Agents tools API's `setEnv`); new keys default to `secret`.
 * @module
 */
import { checkStoredBytes } from "../../limits.js";

/** Display class of an env value: `text` may be shown, `secret` is redacted. */
export type EnvType = "text" | "secret";

/** Thread env rows. */
export class EnvStore {
  /** Called after every write (the thread rebuilds its redactor). */
  onChange: (() => void) | null = null;
  /** Bumped by every write of this object, so a reader can tell without a query that nothing changed. */
  version = 0;

  constructor(private readonly sql: SqlStorage) {}

  get(name: string): { value: string; type: EnvType } | undefined {
    return this.sql.exec<{ value: string; type: EnvType }>("SELECT value, type FROM env WHERE name = ?", name).toArray()[0];
  }

  /** Every row, for redaction. */
  all(): Array<[string, { value: string; type: EnvType }]> {
    return this.sql.exec<{ name: string; value: string; type: EnvType }>("SELECT name, value, type FROM env").toArray().map((r) => [r.name, { value: r.value, type: r.type }]);
  }

  /**
   * Writes a value; an omitted type keeps the existing one, or `secret` for a new key (the Standard Agents tools API).
   * @throws WeftError `payload_too_large` for a value too large to store in one row.
   */
  set(name: string, value: string, type?: EnvType): void {
    checkStoredBytes(value, ["env", name]);
    const kept = type ?? this.get(name)?.type ?? "secret";
    this.sql.exec("INSERT OR REPLACE INTO env (name, value, type) VALUES (?, ?, ?)", name, value, kept);
    this.version++;
    this.onChange?.();
  }
}
