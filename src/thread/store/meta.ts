/**
 * The thread's own record (identity, creation arguments, options) in the `meta` table.
 * @module
 */

/** What a thread was created with. `asOf` is ISO-8601; times are epoch milliseconds. */
export interface ThreadMeta {
  threadId: string;
  agentId: string;
  userId: string | null;
  createdAt: number;
  arguments: Record<string, unknown>;
  dryRun: boolean;
  asOf?: string;
  ephemeral: boolean;
  /**
   * A scratch thread counted against its owner's per-user limit without being listed (kept to
   * answer a repeat of its `Idempotency-Key`): its removal frees the slot. Set before the slot is taken.
   */
  counted?: true;
  /** For the child thread of an agent called as a tool: the calling thread and call. */
  parent?: { threadId: string; callId: string };
}

/** Reads and writes the single thread record. */
export class MetaStore {
  constructor(private readonly sql: SqlStorage) {}

  /** The record, or undefined before creation. */
  read(): ThreadMeta | undefined {
    const row = this.sql.exec<{ value: string }>("SELECT value FROM meta WHERE key = 'thread'").toArray()[0];
    return row ? (JSON.parse(row.value) as ThreadMeta) : undefined;
  }

  write(meta: ThreadMeta): void {
    this.sql.exec("INSERT OR REPLACE INTO meta (key, value) VALUES ('thread', ?)", JSON.stringify(meta));
  }

  /** A counter kept in `meta`, so counts cost O(1) instead of a table scan. */
  counter(name: string): number {
    const row = this.sql.exec<{ value: string }>("SELECT value FROM meta WHERE key = ?", `n:${name}`).toArray()[0];
    return row ? Number(row.value) : 0;
  }

  bump(name: string, by: number): void {
    this.sql.exec(
      "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + ?",
      `n:${name}`,
      String(by),
      by,
    );
  }
}
