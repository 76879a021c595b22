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

  /** Takes the next unplayed step, marking it played in the same write. */
  next(): StoredStep | undefined {
    const row = this.sql
      .exec<{ step: string }>("UPDATE script SET consumed = 1 WHERE id = (SELECT id FROM script WHERE consumed = 0 ORDER BY id LIMIT 1) RETURNING step")
      .toArray()[0];
    return row ? (JSON.parse(row.step) as StoredStep) : undefined;
  }
}
