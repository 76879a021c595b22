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

  /** Takes the next unplayed step, marking it played in the same write; one `ready` refuses is put back (null). */
  next(ready?: (step: StoredStep) => boolean): StoredStep | null | undefined {
    const row = this.sql
      .exec<{ id: number; step: string }>("UPDATE script SET consumed = 1 WHERE id = (SELECT id FROM script WHERE consumed = 0 ORDER BY id LIMIT 1) RETURNING id, step")
      .toArray()[0];
    if (!row) return undefined;
    const step = JSON.parse(row.step) as StoredStep;
    // Synchronous with the take: nothing else runs between them (a held step is the rare case).
    if (ready && !ready(step)) {
      this.sql.exec("UPDATE script SET consumed = 0 WHERE id = ?", row.id);
      return null;
    }
    return step;
  }
}
