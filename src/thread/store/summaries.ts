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
  constructor(private readonly sql: SqlStorage) {}

  /** The newest summary, or null before the first compaction (one primary-key seek). */
  latest(): HistorySummary | null {
    const row = this.sql.exec<SummaryRow>("SELECT * FROM history_summaries ORDER BY through_id DESC LIMIT 1").toArray()[0];
    if (!row) return null;
    return { throughId: row.through_id, content: row.content, tokens: row.tokens, messages: row.messages, model: row.model, createdAt: row.created_at };
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
  }
}
