/**
 * The scripted model's steps: the `script` table, unplayed steps in the order they are played in.
 * @module
 */
import type { StoredStep } from "../../models/scripted.js";

/** Script rows of one thread: the `ScriptRows` a thread's `ScriptQueue` plays (src/models/script-queue.ts). */
export class ScriptStore {
  constructor(private readonly sql: SqlStorage) {}

  /** Appends steps after any not yet played. */
  add(steps: readonly StoredStep[]): void {
    for (const step of steps) this.sql.exec("INSERT INTO script (step) VALUES (?)", JSON.stringify(step));
  }

  /** The first step after row `after`: rowid order, no index to write, as the table holds only unplayed steps. */
  first(after: number): { id: number; step: StoredStep } | undefined {
    const row = this.sql.exec<{ id: number; step: string }>("SELECT id, step FROM script WHERE id > ? ORDER BY id LIMIT 1", after).toArray()[0];
    return row && { id: row.id, step: JSON.parse(row.step) as StoredStep };
  }

  /** Deletes a played step: it is never read again. */
  drop(id: number): void {
    this.sql.exec("DELETE FROM script WHERE id = ?", id);
  }
}
