/**
 * The UserAccount Durable Object: one per user (named by the user id). It keeps the user's env
 * values (the user-account level of env resolution, between the agent's defaults and the
 * Worker's vars and secrets) and an index of the user's threads, so listing them wakes no thread.
 * @module
 */
import { DurableObject } from "cloudflare:workers";
import { WeftError } from "../errors.js";
import { checkStoredBytes, limitOf } from "../limits.js";
import { type RpcResult, rpc } from "./rpc.js";
import type { ThreadApi } from "./api.js";
import type { EnvType } from "./store/env.js";
import type { AccountEntry as ThreadEntry } from "../ports/threads.js";

/** One thread in a user's index (defined with the threads port). */
export type { AccountEntry as ThreadEntry } from "../ports/threads.js";

/** A page of `GET /threads`: newest first; `nextCursor` is null on the last page. */
export interface ThreadPage {
  threads: ThreadEntry[];
  nextCursor: string | null;
}

/** The UserAccount's RPC methods (the class implements this interface). */
export interface AccountApi {
  /**
   * Counts a thread against the user's limit unless the user holds `max` threads already (listed
   * and unlisted together), and lists it in `GET /threads` unless `listed` is false. A thread
   * counted already is left as it is, except that a counted unlisted one is listed when asked
   * (it holds its slot already, so that is never refused).
   * @throws WeftError `too_many_threads` (429) at the limit; nothing is written then.
   */
  addThread(entry: ThreadEntry, max: number, listed?: boolean): Promise<RpcResult<null>>;
  /** Frees the thread's slot (listed or not); a thread not counted changes nothing. */
  removeThread(threadId: string): Promise<RpcResult<null>>;
  /** @throws WeftError `invalid_request` for a cursor this index did not issue. */
  listThreads(options: { limit: number; cursor?: string }): Promise<RpcResult<ThreadPage>>;
  /**
   * Every env value with its type (for resolution and redaction inside the user's threads). A
   * `reader` thread is told of every later change (`accountEnvChanged`), so it may keep the values
   * instead of asking again on every request.
   */
  envValues(reader?: string): Promise<Record<string, { value: string; type: EnvType }>>;
  setEnv(name: string, value: string, type: EnvType): Promise<RpcResult<null>>;
  deleteEnv(name: string): Promise<RpcResult<{ deleted: boolean }>>;
}

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS account_env (name TEXT PRIMARY KEY, value TEXT NOT NULL, type TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS account_threads (thread_id TEXT PRIMARY KEY, agent_id TEXT NOT NULL, created_at INTEGER NOT NULL);
  CREATE INDEX IF NOT EXISTS account_threads_newest ON account_threads (created_at DESC, thread_id DESC);
  CREATE TABLE IF NOT EXISTS account_env_readers (thread_id TEXT PRIMARY KEY);
  CREATE TABLE IF NOT EXISTS account_unlisted (thread_id TEXT PRIMARY KEY, agent_id TEXT NOT NULL, created_at INTEGER NOT NULL);
`;

/** What the account needs of a thread that keeps its env values: the change notice. */
type EnvReader = Pick<ThreadApi, "accountEnvChanged">;

const encodeCursor = (e: { createdAt: number; threadId: string }) => btoa(`${e.createdAt}:${e.threadId}`);

/** What a `cursor` that no page handed out is told (after `cursor: `). */
export const NOT_A_CURSOR = "not a cursor from a previous page";

function decodeCursor(cursor: string): { createdAt: number; threadId: string } {
  let text = "";
  try {
    text = atob(cursor);
  } catch {
    // Falls through to the error below.
  }
  const m = /^(\d{1,15}):([0-9a-f]{64})$/.exec(text);
  if (!m) throw new WeftError("invalid_request", `cursor: ${NOT_A_CURSOR}`, { path: ["cursor"] });
  return { createdAt: Number(m[1]), threadId: m[2]! };
}

/** The UserAccount Durable Object class (binding `ACCOUNT`). */
export class UserAccount extends DurableObject<{ THREAD?: DurableObjectNamespace }> implements AccountApi {
  private readonly sql: SqlStorage;

  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env as { THREAD?: DurableObjectNamespace });
    this.sql = ctx.storage.sql;
    this.sql.exec(SCHEMA);
  }

  async addThread(entry: ThreadEntry, max: number, listed = true): Promise<RpcResult<null>> {
    return rpc(() => {
      // A retried create (same Idempotency-Key) finds its thread listed already: nothing to add.
      if (this.has("account_threads", entry.threadId)) return null;
      if (this.has("account_unlisted", entry.threadId)) {
        // Counted already: a scratch thread kept as a session now is listed in its own slot.
        if (listed) this.move(entry);
        return null;
      }
      const count = this.sql.exec<{ n: number }>("SELECT (SELECT COUNT(*) FROM account_threads) + (SELECT COUNT(*) FROM account_unlisted) AS n").one().n;
      if (count >= max) {
        throw new WeftError("too_many_threads", `this user has ${count} threads; the limit is ${max} threads per user (WEFT_MAX_THREADS_PER_USER)`, {
          limit: max,
        });
      }
      const table = listed ? "account_threads" : "account_unlisted";
      this.sql.exec(`INSERT OR REPLACE INTO ${table} (thread_id, agent_id, created_at) VALUES (?, ?, ?)`, entry.threadId, entry.agentId, entry.createdAt);
      return null;
    });
  }

  private has(table: "account_threads" | "account_unlisted", threadId: string): boolean {
    return this.sql.exec(`SELECT 1 FROM ${table} WHERE thread_id = ?`, threadId).toArray().length > 0;
  }

  /** Lists a counted unlisted thread (one transaction: the slot is never free between the two). */
  private move(entry: ThreadEntry): void {
    this.ctx.storage.transactionSync(() => {
      this.sql.exec("DELETE FROM account_unlisted WHERE thread_id = ?", entry.threadId);
      this.sql.exec("INSERT OR REPLACE INTO account_threads (thread_id, agent_id, created_at) VALUES (?, ?, ?)", entry.threadId, entry.agentId, entry.createdAt);
    });
  }

  async removeThread(threadId: string): Promise<RpcResult<null>> {
    return rpc(() => {
      this.sql.exec("DELETE FROM account_threads WHERE thread_id = ?", threadId);
      this.sql.exec("DELETE FROM account_unlisted WHERE thread_id = ?", threadId);
      return null;
    });
  }

  async listThreads(options: { limit: number; cursor?: string }): Promise<RpcResult<ThreadPage>> {
    return rpc(() => {
      const after = options.cursor ? decodeCursor(options.cursor) : { createdAt: Number.MAX_SAFE_INTEGER, threadId: "g" };
      const rows = this.sql
        .exec<{ thread_id: string; agent_id: string; created_at: number }>(
          `SELECT * FROM account_threads WHERE created_at < ? OR (created_at = ? AND thread_id < ?)
           ORDER BY created_at DESC, thread_id DESC LIMIT ?`,
          after.createdAt,
          after.createdAt,
          after.threadId,
          options.limit + 1,
        )
        .toArray();
      const threads = rows.slice(0, options.limit).map((r) => ({ threadId: r.thread_id, agentId: r.agent_id, createdAt: r.created_at }));
      return { threads, nextCursor: rows.length > options.limit ? encodeCursor(threads.at(-1)!) : null };
    });
  }

  async envValues(reader?: string): Promise<Record<string, { value: string; type: EnvType }>> {
    if (reader !== undefined && this.env.THREAD) this.sql.exec("INSERT OR IGNORE INTO account_env_readers (thread_id) VALUES (?)", reader);
    const rows = this.sql.exec<{ name: string; value: string; type: EnvType }>("SELECT * FROM account_env").toArray();
    return Object.fromEntries(rows.map((r) => [r.name, { value: r.value, type: r.type }]));
  }

  async setEnv(name: string, value: string, type: EnvType): Promise<RpcResult<null>> {
    return rpc(async () => {
      checkStoredBytes(value, ["value"]);
      this.sql.exec("INSERT OR REPLACE INTO account_env (name, value, type) VALUES (?, ?, ?)", name, value, type);
      await this.tellReaders();
      return null;
    });
  }

  /**
   * Tells every thread that keeps this user's env values that they changed, before the change is
   * acknowledged: a secret is redacted everywhere from the moment its write returns. A thread
   * that no longer exists is dropped from the readers.
   */
  private async tellReaders(): Promise<void> {
    const ns = this.env.THREAD;
    if (!ns) return;
    const readers = this.sql.exec<{ thread_id: string }>("SELECT thread_id FROM account_env_readers").toArray();
    await Promise.all(
      readers.map(async ({ thread_id }) => {
        const answer = await (ns.get(ns.idFromString(thread_id)) as unknown as EnvReader).accountEnvChanged().catch(() => ({ live: true }));
        if (!answer.live) this.sql.exec("DELETE FROM account_env_readers WHERE thread_id = ?", thread_id);
      }),
    );
  }

  async deleteEnv(name: string): Promise<RpcResult<{ deleted: boolean }>> {
    return rpc(async () => {
      const had = this.sql.exec("SELECT 1 FROM account_env WHERE name = ?", name).toArray().length > 0;
      this.sql.exec("DELETE FROM account_env WHERE name = ?", name);
      if (had) await this.tellReaders();
      return { deleted: had };
    });
  }
}

/** The account stub of a user. */
export function accountOf(ns: DurableObjectNamespace, userId: string): AccountApi {
  return ns.get(ns.idFromName(userId)) as unknown as AccountApi;
}

/** How a thread is counted by {@link claimThread}. */
export interface ClaimOptions {
  /**
   * Count it past the limit: for a thread that holds a write that began and waits for a person to
   * settle it, which only a listed thread lets anyone find, and for relisting a thread whose
   * create was counted before a deletion unlisted its id.
   */
  mustKeep?: boolean;
  /**
   * False: count it without listing it in `GET /threads`, for a direct call's scratch thread kept
   * only to answer a repeat of its `Idempotency-Key` (no conversation the user made). Default true.
   */
  listed?: boolean;
}

/**
 * Counts a thread against its owner's per-user limit (`WEFT_MAX_THREADS_PER_USER`, read from
 * `vars`) and lists it in `GET /threads` (unless `listed` is false): the one check that every way
 * a thread comes to exist or is kept goes through (a create, a direct call's scratch thread kept
 * for a call that waits for a person or for its `Idempotency-Key`, an agent's child thread).
 * Counting a thread counted already changes nothing and is never refused, so a retried create or
 * a recovered child passes; listing a counted unlisted thread takes no second slot. The owner's
 * account frees the slot when the thread is removed (`removeThread`).
 * @returns the account's answer: WeftError `too_many_threads` (429) at the limit, nothing written then.
 */
export function claimThread(account: AccountApi, vars: Readonly<Record<string, unknown>>, entry: ThreadEntry, options: ClaimOptions = {}): Promise<RpcResult<null>> {
  return account.addThread(entry, options.mustKeep ? Number.MAX_SAFE_INTEGER : limitOf(vars, "threadsPerUser"), options.listed ?? true);
}
