/**
 * The order a thread's script steps are played in, over the rows that store them: each step
 * once, and a held step (`waitFor`) left next.
 * @module
 */
import type { ScriptSource, StoredStep } from "./scripted.js";

/** Where a thread's unplayed steps are stored, by ascending row id (src/thread/store/script.ts). */
export interface ScriptRows {
  /** Appends steps after every stored one. */
  add(steps: readonly StoredStep[]): void;
  /** The first stored step, if any. */
  first(): { id: number; step: StoredStep } | undefined;
  /** Deletes a step's row. */
  drop(id: number): void;
}

/** The scripted model's source over stored rows. */
export class ScriptQueue implements ScriptSource {
  constructor(private readonly rows: ScriptRows) {}

  /** Appends steps after any not yet played. */
  add(steps: readonly StoredStep[]): void {
    this.rows.add(steps);
  }

  /**
   * Takes the next step, deleting it (a played step is never read again); a step `ready` refuses
   * stays next and null is answered; undefined when none is left.
   */
  next(ready?: (step: StoredStep) => boolean): StoredStep | null | undefined {
    const row = this.rows.first();
    if (!row) return undefined;
    // Synchronous with the read: nothing else takes a step between them.
    if (ready && !ready(row.step)) return null;
    this.rows.drop(row.id);
    return row.step;
  }
}
