/**
 * The notes `add_note` writes and `list_notes` reads: one array under one key of the thread's
 * durable key-value store, oldest first.
 * @module
 */
import type { ThreadState } from "@standardagents/spec";

/** One saved note; `createdAt` is an ISO-8601 instant. */
export interface Note {
  id: string;
  title: string;
  body: string;
  createdAt: string;
}

/** The key-value entry holding a thread's notes. */
export const NOTES_KEY = "notes";

/** Notes one thread may hold, so the stored value stays small. */
export const MAX_NOTES = 200;

/** A thread's notes, oldest first; empty when none were saved. */
export async function readNotes(state: Pick<ThreadState, "getValue">): Promise<Note[]> {
  return (await state.getValue<Note[]>(NOTES_KEY)) ?? [];
}

/**
 * Appends `note` unless a note with its id is already stored, and returns how many notes the
 * thread holds. Two calls in one model step may interleave their read and write, so the append is
 * checked after writing and repeated if another write replaced it.
 * @throws Error when the thread already holds {@link MAX_NOTES} notes, or writes keep colliding.
 */
export async function appendNote(state: Pick<ThreadState, "getValue" | "setValue">, note: Note): Promise<number> {
  for (let round = 0; round <= 5; round++) {
    const notes = await readNotes(state);
    if (notes.some((n) => n.id === note.id)) return notes.length;
    if (round === 5) break;
    if (notes.length >= MAX_NOTES) throw new Error(`this thread already holds ${MAX_NOTES} notes`);
    await state.setValue(NOTES_KEY, [...notes, note]);
  }
  throw new Error("the note could not be saved: concurrent writes kept replacing it");
}
