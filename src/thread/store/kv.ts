/**
 * The thread's durable key-value store (the Standard Agents tools API's `getValue`/`setValue`). One logical row per key;
 * a value is JSON text split into chunks so no row nears SQLite's 2 MB limit (no SQLITE_TOOBIG).
 * @module
 */
import { WeftError } from "../../errors.js";
import type { KvTable } from "../../ports/store.js";

/** Characters per chunk: at most 3 UTF-8 bytes each, so a chunk stays under 1.5 MB. */
export const CHUNK_CHARS = 512 * 1024;

/**
 * A value's stored form: its JSON text.
 * @throws WeftError `invalid_request` when the value has no JSON form (undefined, a function, a cycle).
 */
export function kvText(key: string, value: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (cause) {
    throw new WeftError("invalid_request", `setValue("${key}"): value is not JSON-serializable`, { key }, { cause });
  }
  if (text === undefined) {
    throw new WeftError("invalid_request", `setValue("${key}"): value is not JSON-serializable`, { key });
  }
  return text;
}

/** Chunked JSON values keyed by string. */
export class KvStore implements KvTable {
  constructor(private readonly storage: DurableObjectStorage) {}

  /** The stored value, or null when the key is absent. */
  get<T = unknown>(key: string): T | null {
    const rows = this.storage.sql.exec<{ data: string }>("SELECT data FROM kv WHERE key = ? ORDER BY chunk", key).toArray();
    if (rows.length === 0) return null;
    return JSON.parse(rows.length === 1 ? rows[0]!.data : rows.map((r) => r.data).join("")) as T;
  }

  /**
   * Stores `value` as JSON, replacing any earlier value atomically.
   * @throws WeftError `invalid_request` when the value has no JSON form (undefined, a function, a cycle).
   */
  set(key: string, value: unknown): void {
    const text = kvText(key, value);
    this.storage.transactionSync(() => {
      this.storage.sql.exec("DELETE FROM kv WHERE key = ?", key);
      for (let i = 0, chunk = 0; i < text.length || chunk === 0; i += CHUNK_CHARS, chunk++) {
        this.storage.sql.exec("INSERT INTO kv (key, chunk, data) VALUES (?, ?, ?)", key, chunk, text.slice(i, i + CHUNK_CHARS));
      }
    });
  }
}
