/**
 * Sets a thread's database back to an older schema version, for the tests of a migration: the
 * migrations after it then run again when the thread's Durable Object starts.
 * @module
 */
import { MIGRATIONS } from "../../../src/thread/store/migrations.js";

/**
 * Sets the schema version to `version` and drops each column a later migration adds (`ALTER TABLE
 * ... ADD COLUMN`) that would still stand when it runs again: SQLite has no `ADD COLUMN IF NOT
 * EXISTS`, so it would fail. A column of a table a migration before it rebuilds (`DROP TABLE`) is
 * kept: the rebuild leaves it out anyway, and the running instance still reads it until evicted.
 * Tables and indexes later migrations make are left to the test (those use `IF NOT EXISTS`, or the
 * test removes them).
 */
export function schemaBackTo(sql: SqlStorage, version: number): void {
  const rebuilt = new Set<string>();
  for (const statement of MIGRATIONS.slice(version).join("\n").matchAll(/DROP TABLE (\w+)|ALTER TABLE (\w+) ADD COLUMN (\w+)/g)) {
    const [, dropped, table, column] = statement;
    if (dropped) rebuilt.add(dropped);
    else if (!rebuilt.has(table!) && sql.exec("SELECT 1 FROM pragma_table_info(?) WHERE name = ?", table!, column!).toArray().length > 0) {
      sql.exec(`ALTER TABLE ${table} DROP COLUMN ${column}`);
    }
  }
  sql.exec("UPDATE weft_schema SET version = ?", version);
}
