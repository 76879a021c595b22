/**
 * The scripted model's steps: the `script` table, played in order, each step once.
 * @module
 */
import type { ScriptSource, StoredStep } from "../../models/scripted.js";

/** Script rows of one thread. */
export class ScriptStore implements ScriptSource {
  constructor(private readonly sql: SqlStorage) {}

  /** Appends steps after any not yet played. */
  add(steps: readonly StoredStep[]): void {
    for (const step of steps) this.sql.exec("INSERT INTO script (step) VALUES (?)", JSON.stringify(step));
  }

  /** Takes the next step, deleting it (a played step is never read again); one `ready` refuses stays (null). */
  next(ready?: (step: StoredStep) => boolean): StoredStep | null | undefined {
    // Rowid order (no index to write): the table holds only unplayed steps.
    const row = this.sql.exec<{ id: number; step: string }>("SELECT id, step FROM script ORDER BY id LIMIT 1").toArray()[0];
    if (!row) return undefined;
    const step = JSON.parse(row.step) as StoredStep;
    // Synchronous with the read: nothing else takes a step between them.
    if (ready && !ready(step)) return null;
    this.sql.exec("DELETE FROM script WHERE id = ?", row.id);
    return step;
  }
}
