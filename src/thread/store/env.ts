/**
 * Thread-scoped environment values (the Standard Agents tools API's `setEnv`); new keys default to `secret`.
 * @module
 */
import { checkStoredBytes } from "../../limits.js";

import type { EnvTable, EnvType, ReceivedLevel } from "../../ports/store.js";

/** Display class of an env value, and where a received secret came from (defined with the store port). */
export type { EnvType, ReceivedLevel } from "../../ports/store.js";

/** Thread env rows, and which secrets of other levels thread code received. */
export class EnvStore implements EnvTable {
  /** Called after every write (the thread rebuilds its redactor). */
  onChange: (() => void) | null = null;
  /** Bumped by every write of this object, so a reader can tell without a query that nothing changed. */
  version = 0;

  /** The received rows, read once per instance (`name\0level`). */
  private receivedKeys: Set<string> | null = null;

  constructor(private readonly sql: SqlStorage) {}

  /** Every secret of another level thread code received (in no particular order: a redactor's input). */
  received(): Array<{ name: string; level: ReceivedLevel }> {
    return [...this.receivedSet()].map((k) => {
      const [name, level] = k.split("\0") as [string, ReceivedLevel];
      return { name, level };
    });
  }

  /**
   * Records that thread code received the secret `name` of `level`, durably, before the value is
   * handed out: one row per name and level, written once. A new one bumps {@link version}, so the
   * redactor holds it from now on.
   */
  receive(name: string, level: ReceivedLevel): void {
    const set = this.receivedSet();
    const key = `${name}\0${level}`;
    if (set.has(key)) return;
    this.sql.exec("INSERT OR IGNORE INTO env_received (name, level) VALUES (?, ?)", name, level);
    set.add(key);
    this.version++;
    this.onChange?.();
  }

  /** Drops the kept received rows (after a rollback or `deleteAll`): read again when next asked. */
  forget(): void {
    this.receivedKeys = null;
    this.version++;
  }

  private receivedSet(): Set<string> {
    this.receivedKeys ??= new Set(this.sql.exec<{ name: string; level: string }>("SELECT name, level FROM env_received").toArray().map((r) => `${r.name}\0${r.level}`));
    return this.receivedKeys;
  }

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
