/**
 * The thread's own record (identity, creation arguments, options) in the `meta` table.
 * @module
 */
import { randomHex } from "../../bytes.js";
import type { MetaTable, ThreadMeta } from "../../ports/store.js";

/** The thread's record: one row. */
export const META_SQL = "SELECT value FROM meta WHERE key = 'thread'";
/** The thread record stored as `text` ({@link META_SQL}'s value), or undefined without one. */
export const metaOf = (text: string | null | undefined): ThreadMeta | undefined => (text ? (JSON.parse(text) as ThreadMeta) : undefined);

/** Reads and writes the single thread record. */
export class MetaStore implements MetaTable {
  constructor(private readonly sql: SqlStorage) {}

  /** The record, or undefined before creation. */
  read(): ThreadMeta | undefined {
    return metaOf(this.sql.exec<{ value: string }>(META_SQL).toArray()[0]?.value);
  }

  write(meta: ThreadMeta): void {
    this.sql.exec("INSERT OR REPLACE INTO meta (key, value) VALUES ('thread', ?)", JSON.stringify(meta));
  }

  /** A counter kept in `meta`, so counts cost O(1) instead of a table scan. */
  counter(name: string): number {
    const row = this.sql.exec<{ value: string }>("SELECT value FROM meta WHERE key = ?", `n:${name}`).toArray()[0];
    return row ? Number(row.value) : 0;
  }

  bump(name: string, by: number): void {
    this.bumpAll([name], by);
  }

  /** Adds `by` to each counter of `names`, in one statement (a message bumps none to three). */
  bumpAll(names: readonly string[], by: number): void {
    const rows = names.map(() => "(?, ?)").join(", ");
    this.sql.exec(
      `INSERT INTO meta (key, value) VALUES ${rows} ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + CAST(excluded.value AS INTEGER)`,
      ...names.flatMap((name) => [`n:${name}`, String(by)]),
    );
  }

  secret(name: string): string {
    this.sql.exec("INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)", `s:${name}`, randomHex(32));
    return this.sql.exec<{ value: string }>("SELECT value FROM meta WHERE key = ?", `s:${name}`).one().value;
  }
}
