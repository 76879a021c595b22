/**
 * The thread's file system: full tool results that were capped for the model, and attachments.
 * Contents are chunked like kv values, so no write ever fails on SQLite's 2 MB row limit.
 * @module
 */
import { CHUNK_CHARS } from "./kv.js";

import type { FileInfo, FileTable } from "../../ports/store.js";
import { withContent } from "../../content/file-content.js";

/** A stored file's metadata (defined with the store port). */
export type { FileInfo } from "../../ports/store.js";

type FileRow = { path: string; mime_type: string; size: number; created_at: number };
const infoOf = (row: FileRow): FileInfo => ({ path: row.path, mimeType: row.mime_type, size: row.size, createdAt: row.created_at });

/** Chunked text files keyed by path. Binary data is kept base64-encoded. */
export class FileStore implements FileTable {
  constructor(private readonly storage: DurableObjectStorage) {}

  /** Writes (or replaces) a file atomically. */
  write(path: string, data: string, mimeType: string, size: number, now = Date.now()): FileInfo {
    const sql = this.storage.sql;
    const chunks = Math.max(1, Math.ceil(data.length / CHUNK_CHARS));
    this.storage.transactionSync(() => {
      sql.exec("DELETE FROM file_chunks WHERE path = ?", path);
      for (let i = 0; i < chunks; i++) {
        sql.exec("INSERT INTO file_chunks (path, chunk, data) VALUES (?, ?, ?)", path, i, data.slice(i * CHUNK_CHARS, (i + 1) * CHUNK_CHARS));
      }
      sql.exec("INSERT OR REPLACE INTO files (path, mime_type, size, chunks, created_at) VALUES (?, ?, ?, ?, ?)", path, mimeType, size, chunks, now);
    });
    return { path, mimeType, size, createdAt: now };
  }

  info(path: string): FileInfo | undefined {
    const row = this.storage.sql.exec<FileRow>("SELECT * FROM files WHERE path = ?", path).toArray()[0];
    return row && infoOf(row);
  }

  /** The stored text (base64 for binary files), or undefined: every file has a chunk at least, an empty one "". */
  read(path: string): string | undefined {
    const chunks = this.storage.sql.exec<{ data: string }>("SELECT data FROM file_chunks WHERE path = ? ORDER BY chunk", path).toArray();
    return chunks.length > 0 ? chunks.map((r) => r.data).join("") : undefined;
  }

  /**
   * A file with its content: text as is; attachments are stored base64, and a text attachment is
   * decoded (so redaction can read it); binary content stays base64.
   */
  content(path: string): (FileInfo & { data: string; encoding: "utf-8" | "base64" }) | undefined {
    const info = this.info(path);
    return info && withContent(info, this.read(path)!);
  }

  redactedFor(): string | undefined {
    return this.storage.sql.exec<{ value: string }>("SELECT value FROM meta WHERE key = 'files_redacted_for'").toArray()[0]?.value;
  }

  markRedactedFor(fingerprint: string): void {
    this.storage.sql.exec("INSERT OR REPLACE INTO meta (key, value) VALUES ('files_redacted_for', ?)", fingerprint);
  }

  /** Files' metadata by path, at most `limit` (SQLite's -1: all), after `after` when given, each read as it is taken. */
  *list(limit = -1, after?: string): Generator<FileInfo> {
    const [where, bind] = after === undefined ? ["", []] : ["WHERE path > ? ", [after]];
    for (const row of this.storage.sql.exec<FileRow>(`SELECT * FROM files ${where}ORDER BY path LIMIT ?`, ...bind, limit)) yield infoOf(row);
  }

  /** Whether the thread holds any file. */
  any(): boolean {
    return this.storage.sql.exec("SELECT 1 FROM files LIMIT 1").toArray().length > 0;
  }

  /** Removes a file and its chunks; false when there was none. */
  delete(path: string): boolean {
    return this.storage.transactionSync(() => {
      this.storage.sql.exec("DELETE FROM file_chunks WHERE path = ?", path);
      return this.storage.sql.exec("DELETE FROM files WHERE path = ?", path).rowsWritten > 0;
    });
  }
}
