/**
 * The call journal as the dispatch pipeline sees it; defined with the ledger port (src/ports/ledger.ts).
 * @module
 */
/** A new journal row (see `JournalEntry` in src/ports/ledger.ts). */
export type { JournalEntry } from "../ports/ledger.js";
/** The call journal (see `CallJournal` in src/ports/ledger.ts). */
export type { CallJournal } from "../ports/ledger.js";
