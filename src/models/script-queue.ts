/**
 * The order a thread's script steps are played in, over the rows that store them: each step
 * once, a held step (`waitFor`) left next, and a paced step (`chunkDelayMs`) kept stored until
 * its stream ends, so that a restart mid-stream, which ends nothing, plays it again.
 * @module
 */
import type { ScriptSource, StoredStep } from "./scripted.js";

/** Where a thread's unplayed steps are stored, by ascending row id (src/thread/store/script.ts). */
export interface ScriptRows {
  /** Appends steps after every stored one. */
  add(steps: readonly StoredStep[]): void;
  /** The first stored step whose row id is above `after`, if any. */
  first(after: number): { id: number; step: StoredStep } | undefined;
  /** Deletes a step's row. */
  drop(id: number): void;
}

/** The scripted model's source over stored rows; one per thread object, which keeps what is streaming. */
export class ScriptQueue implements ScriptSource {
  /** Paced steps streaming, by the object `next` answered, with their rows: they lead the stored ones. */
  private readonly playing = new Map<StoredStep, number>();

  constructor(private readonly rows: ScriptRows) {}

  /** Appends steps after any not yet played. */
  add(steps: readonly StoredStep[]): void {
    this.rows.add(steps);
  }

  /**
   * Takes the next step not streaming now, deleting it (a paced one once its stream ended); a step
   * `ready` refuses stays next and null is answered; undefined when none is left.
   */
  next(ready?: (step: StoredStep) => boolean): StoredStep | null | undefined {
    const row = this.rows.first(Math.max(0, ...this.playing.values()));
    if (!row) return undefined;
    // Synchronous with the read: nothing else takes a step between them.
    if (ready && !ready(row.step)) return null;
    if (row.step.chunkDelayMs) this.playing.set(row.step, row.id);
    else this.rows.drop(row.id);
    return row.step;
  }

  /** A step's stream ended (whole, or cut by a stop or a deadline): a paced step is deleted now. */
  ended(step: StoredStep): void {
    const id = this.playing.get(step);
    if (id === undefined) return;
    this.playing.delete(step);
    this.rows.drop(id);
  }
}
