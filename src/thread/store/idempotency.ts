/**
 * Answers kept per `Idempotency-Key`, so a retried request (after a dropped connection, a deploy,
 * a client crash) gets its first answer back instead of acting twice. A key is claimed before the
 * request acts and answered after, in the thread that acts, so claim, effect and answer share one
 * storage. Rows expire after {@link IDEMPOTENCY_WINDOW_MS}; at most {@link IDEMPOTENCY_MAX_KEYS}
 * are kept per thread; answers are chunked so no row nears SQLite's 2 MB limit.
 * @module
 */
import { WeftError } from "../../errors.js";
import type { IdempotencyClaim } from "../../rpc.js";
import { CHUNK_CHARS } from "./kv.js";

/** How long a key's answer is kept: 24 hours, in milliseconds. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

/** Keys kept per thread; beyond it the oldest go first, never one whose request runs here or whose answer waits (see `claim`). */
export const IDEMPOTENCY_MAX_KEYS = 1000;

/**
 * What a claim found: nothing (act now; `cut` when an earlier request with the key was cut by a
 * restart, so part of its work may be durable), or the first answer to replay.
 */
export type ClaimOutcome<T> = { state: "claimed"; cut: boolean } | { state: "answered"; answer: T };

/** `done`: 0 claimed, 1 answered, 2 taken with its effect (see `taken`). */
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
    // A key taken with its effect by a run a restart cut (done 2) replays what it kept.
    if (row?.done === 1 || (row?.done === 2 && row.instance !== this.instance)) {
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
        // Never a key whose request still runs here, or whose effect is stored without its answer
        // (done 2): a retry would act again. Those expire with the window.
        const oldest = "SELECT scoped_key FROM idempotency WHERE done = 1 OR (done = 0 AND instance != ?) ORDER BY created_at LIMIT ?";
        sql.exec(`DELETE FROM idempotency_chunks WHERE scoped_key IN (${oldest})`, this.instance, count - IDEMPOTENCY_MAX_KEYS);
        sql.exec(`DELETE FROM idempotency WHERE scoped_key IN (${oldest})`, this.instance, count - IDEMPOTENCY_MAX_KEYS);
      }
    });
    return { state: "claimed", cut: row !== undefined };
  }

  /** Stores the answer of a claimed key (chunked). */
  answer(scope: string, claim: IdempotencyClaim, answer: unknown): void {
    this.keep(JSON.stringify([scope, claim.key]), answer, 1);
  }

  /**
   * Keeps `answer` for a key this instance claimed, in the transaction of the request's effect
   * (a message enqueued, a schedule stored), before the request answers: a retry after a restart
   * cut it replays this instead of acting again. While the request runs, a retry is still
   * `idempotency_key_in_use`, and its own answer replaces this one.
   */
  taken(scope: string, claim: IdempotencyClaim, answer: unknown): void {
    const scoped = JSON.stringify([scope, claim.key]);
    if (this.storage.sql.exec("SELECT 1 FROM idempotency WHERE scoped_key = ? AND instance = ? AND done = 0", scoped, this.instance).toArray().length > 0) this.keep(scoped, answer, 2);
  }

  private keep(scoped: string, answer: unknown, done: 1 | 2): void {
    const sql = this.storage.sql;
    const text = JSON.stringify(answer) ?? "null";
    this.storage.transactionSync(() => {
      sql.exec("DELETE FROM idempotency_chunks WHERE scoped_key = ?", scoped);
      let chunk = 0;
      for (let i = 0; i < text.length || chunk === 0; i += CHUNK_CHARS, chunk++) {
        sql.exec("INSERT INTO idempotency_chunks (scoped_key, chunk, data) VALUES (?, ?, ?)", scoped, chunk, text.slice(i, i + CHUNK_CHARS));
      }
      sql.exec("UPDATE idempotency SET done = ?, chunks = ? WHERE scoped_key = ?", done, chunk, scoped);
    });
  }

  /** Forgets a claim whose request failed retryably; a key taken with its effect keeps that answer (the effect happened). */
  release(scope: string, claim: IdempotencyClaim): void {
    const scoped = JSON.stringify([scope, claim.key]);
    this.storage.sql.exec("UPDATE idempotency SET done = 1 WHERE scoped_key = ? AND done = 2", scoped);
    this.storage.sql.exec("DELETE FROM idempotency WHERE scoped_key = ? AND done = 0", scoped);
  }
}
