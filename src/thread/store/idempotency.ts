/**
 * Answers kept per `Idempotency-Key`, so a retried request (after a dropped connection, a deploy,
 * a client crash) gets its first answer back instead of acting twice. A key is claimed before the
 * request acts and answered after, in the thread that acts, so claim, effect and answer share one
 * storage. Rows expire after {@link IDEMPOTENCY_WINDOW_MS}; at most {@link IDEMPOTENCY_MAX_KEYS}
 * are kept per thread; answers are chunked so no row nears SQLite's 2 MB limit.
 * @module
 */
import { sha256Hex } from "../../bytes.js";
import { WeftError } from "../../errors.js";
import { CHUNK_CHARS } from "./kv.js";

/** How long a key's answer is kept: 24 hours, in milliseconds. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

/** Keys kept per thread; the oldest go first beyond it. */
export const IDEMPOTENCY_MAX_KEYS = 1000;

/** What the Worker sends with a request that carried `Idempotency-Key`. */
export interface IdempotencyClaim {
  /** The header's value. */
  key: string;
  /** SHA-256 hex of the method, path and canonical body: a different request under the same key differs here. */
  fingerprint: string;
}

/**
 * The id of a direct call of `toolName` made under `claim` for user `scope`: every retry of the
 * request gets the same id, so a retry after a restart cut the first one finds that call (its
 * result, or its recovery by effect policy) instead of running the tool a second time.
 */
export async function keyedCallId(scope: string, claim: IdempotencyClaim, toolName: string): Promise<string> {
  return `tool_${toolName}_${(await sha256Hex(`${scope}\n${claim.key}\n${claim.fingerprint}`)).slice(0, 24)}`;
}

/**
 * What a claim found: nothing (act now; `cut` when an earlier request with the key was cut by a
 * restart, so part of its work may be durable), or the first answer to replay.
 */
export type ClaimOutcome<T> = { state: "claimed"; cut: boolean } | { state: "answered"; answer: T };

type Row = { fingerprint: string; instance: string; done: number };

/** The idempotency table of one thread. */
export class IdempotencyStore {
  /** Names this run of the Durable Object: a claim left by another run was cut by a restart. */
  private readonly instance = crypto.randomUUID();

  constructor(private readonly storage: DurableObjectStorage) {}

  /**
   * Claims `claim.key` for `scope` (the caller), synchronously, so two requests arriving together
   * cannot both act.
   * @throws WeftError `idempotency_key_reused` (422) when the key came with a different request;
   * `idempotency_key_in_use` (409, retryable) while the first request with the key still runs.
   */
  claim<T>(scope: string, claim: IdempotencyClaim, now = Date.now()): ClaimOutcome<T> {
    const sql = this.storage.sql;
    const scoped = JSON.stringify([scope, claim.key]);
    sql.exec("DELETE FROM idempotency_chunks WHERE scoped_key IN (SELECT scoped_key FROM idempotency WHERE created_at < ?)", now - IDEMPOTENCY_WINDOW_MS);
    sql.exec("DELETE FROM idempotency WHERE created_at < ?", now - IDEMPOTENCY_WINDOW_MS);
    const row = sql.exec<Row>("SELECT fingerprint, instance, done FROM idempotency WHERE scoped_key = ?", scoped).toArray()[0];
    if (row && row.fingerprint !== claim.fingerprint) {
      throw new WeftError("idempotency_key_reused", "Idempotency-Key was used with a different request (method, path or body); use a new key for a new request", {
        path: ["headers", "idempotency-key"],
      });
    }
    if (row?.done) {
      const chunks = sql.exec<{ data: string }>("SELECT data FROM idempotency_chunks WHERE scoped_key = ? ORDER BY chunk", scoped).toArray();
      return { state: "answered", answer: JSON.parse(chunks.map((c) => c.data).join("")) as T };
    }
    if (row && row.instance === this.instance) {
      throw new WeftError("idempotency_key_in_use", "a request with this Idempotency-Key is still running; retry after it answers", {
        path: ["headers", "idempotency-key"],
      });
    }
    // No row, or a claim a restart cut: this request acts (what the cut one made durable stays).
    this.storage.transactionSync(() => {
      sql.exec(
        "INSERT OR REPLACE INTO idempotency (scoped_key, fingerprint, instance, done, chunks, created_at) VALUES (?, ?, ?, 0, 0, ?)",
        scoped,
        claim.fingerprint,
        this.instance,
        now,
      );
      const count = sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM idempotency").one().n;
      if (count > IDEMPOTENCY_MAX_KEYS) {
        const oldest = "SELECT scoped_key FROM idempotency ORDER BY created_at LIMIT ?";
        sql.exec(`DELETE FROM idempotency_chunks WHERE scoped_key IN (${oldest})`, count - IDEMPOTENCY_MAX_KEYS);
        sql.exec(`DELETE FROM idempotency WHERE scoped_key IN (${oldest})`, count - IDEMPOTENCY_MAX_KEYS);
      }
    });
    return { state: "claimed", cut: row !== undefined };
  }

  /** Stores the answer of a claimed key (chunked). */
  answer(scope: string, claim: IdempotencyClaim, answer: unknown): void {
    const sql = this.storage.sql;
    const scoped = JSON.stringify([scope, claim.key]);
    const text = JSON.stringify(answer) ?? "null";
    this.storage.transactionSync(() => {
      sql.exec("DELETE FROM idempotency_chunks WHERE scoped_key = ?", scoped);
      let chunk = 0;
      for (let i = 0; i < text.length || chunk === 0; i += CHUNK_CHARS, chunk++) {
        sql.exec("INSERT INTO idempotency_chunks (scoped_key, chunk, data) VALUES (?, ?, ?)", scoped, chunk, text.slice(i, i + CHUNK_CHARS));
      }
      sql.exec("UPDATE idempotency SET done = 1, chunks = ? WHERE scoped_key = ?", chunk, scoped);
    });
  }

  /** Forgets a claim whose request failed in a way a retry may not (a retryable error). */
  release(scope: string, claim: IdempotencyClaim): void {
    this.storage.sql.exec("DELETE FROM idempotency WHERE scoped_key = ? AND done = 0", JSON.stringify([scope, claim.key]));
  }
}
