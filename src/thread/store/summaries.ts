/**
 * Compaction summaries of the thread's own conversation: each covers every depth-0 message up to
 * `throughId` and replaces them at the head of later model requests. Only the newest is read.
 * @module
 */
import type { HistorySummary } from "../../run/window.js";

interface SummaryRow extends Record<string, SqlStorageValue> {
  through_id: number;
  content: string;
  tokens: number;
  messages: number;
  model: string;
  created_at: number;
}

/** Reads and writes `history_summaries`. */
export class SummaryStore {
  /** The newest summary once read (undefined: not read yet); each model step asks for it. */
  private newest: HistorySummary | null | undefined = undefined;

  constructor(private readonly sql: SqlStorage) {}

  /** The newest summary, or null before the first compaction (one primary-key seek, then memory). */
  latest(): HistorySummary | null {
    if (this.newest !== undefined) return this.newest;
    const row = this.sql.exec<SummaryRow>("SELECT * FROM history_summaries ORDER BY through_id DESC LIMIT 1").toArray()[0];
    this.newest = row
      ? Object.freeze({ throughId: row.through_id, content: row.content, tokens: row.tokens, messages: row.messages, model: row.model, createdAt: row.created_at })
      : null;
    return this.newest;
  }

  /** Drops the summary kept in memory (after a rollback or `deleteAll`). */
  forget(): void {
    this.newest = undefined;
  }

  /** Stores a summary; older ones are superseded (each summary folds in the one before it). */
  save(summary: HistorySummary): void {
    this.sql.exec(
      "INSERT OR REPLACE INTO history_summaries (through_id, content, tokens, messages, model, created_at) VALUES (?, ?, ?, ?, ?, ?)",
      summary.throughId,
      summary.content,
      summary.tokens,
      summary.messages,
      summary.model,
      summary.createdAt,
    );
    this.sql.exec("DELETE FROM history_summaries WHERE through_id < ?", summary.throughId);
    // Read back next time: a summary older than the stored newest does not replace it.
    this.newest = undefined;
  }
}
