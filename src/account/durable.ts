/**
 * The UserAccount Durable Object: one per user (named by the user id). It keeps the user's env
 * values (the user-account level of env resolution, between the agent's defaults and the
 * Worker's vars and secrets) and an index of the user's threads, so listing them wakes no thread.
 * Its RPC interface and stub are api.ts.
 * @module
 */
import { DurableObject } from "cloudflare:workers";
import { randomHex } from "../bytes.js";
import { WeftError } from "../errors.js";
import { checkStoredBytes, MAX_ACCOUNT_ENV_BYTES, MAX_ACCOUNT_ENV_VALUES, NOT_A_CURSOR, REMOVED_KEPT_MS, tooManySchedules } from "../limits.js";
import { type RpcResult, rpc } from "../rpc.js";
import type { EnvType } from "../protocol.js";
import { type AccountApi, type BudgetWatcher, type ThreadEntry, threadCursor } from "./api.js";
import type { AccountLogLevels, ThreadPage, UserMcpServer } from "./types.js";
import type { AccountUsage, AccountUsageQuery } from "../usage/reports.js";
import { ACCOUNT_USAGE_SCHEMA, migrateAccountUsage, readAccountUsage, setUserBudgets, userBudgets } from "../usage/account-ledger.js";
import { type Budget, checkBudgets } from "../usage/budgets.js";
import { handOverWatchers } from "../usage/hand-over.js";
import { EnvReaders } from "./env-readers.js";
import { RETIRED_SECRETS_SCHEMA, RetiredSecrets } from "./retired-secrets.js";
import { MCP_SERVERS_SCHEMA, UserMcpServers } from "./mcp-servers.js";
import type { McpOAuthAuth, McpServerDefinition } from "../remote/define.js";
import { MCP_CONNECTIONS_SCHEMA, type McpConnectionInfo, bindingOf, migrateMcpConnections, McpConnections, type McpTokenAnswer, type McpTokenRequest } from "./mcp-connections.js";
import { type ReserveAnswer, type ReserveRequest, Reservations, type SettleAnswer, type SettleBatch } from "../usage/reservations.js";

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS account_env (name TEXT PRIMARY KEY, value TEXT NOT NULL, type TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS account_threads (thread_id TEXT PRIMARY KEY, agent_id TEXT NOT NULL, created_at INTEGER NOT NULL);
  CREATE INDEX IF NOT EXISTS account_threads_newest ON account_threads (created_at DESC, thread_id DESC);
  CREATE TABLE IF NOT EXISTS account_unlisted (thread_id TEXT PRIMARY KEY, agent_id TEXT NOT NULL, created_at INTEGER NOT NULL);
  CREATE TABLE IF NOT EXISTS schedule_counts (thread_id TEXT PRIMARY KEY, active INTEGER NOT NULL);
  CREATE TABLE IF NOT EXISTS account_removed (thread_id TEXT NOT NULL, created_at INTEGER NOT NULL, removed_at INTEGER NOT NULL, PRIMARY KEY (thread_id, created_at)) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS account_removed_by_age ON account_removed (removed_at);
  CREATE TABLE IF NOT EXISTS account_keys (name TEXT PRIMARY KEY, value TEXT NOT NULL);
`;

/**
 * Bytes an env entry takes in the RPC answer a thread reads them by: structured clone keeps a string
 * one byte a character, or two for all of it once one character is past U+00FF; and a little for the
 * entry's own shape.
 */
function entryWireBytes(name: string, value: string): number {
  const wire = (s: string) => (/[^\0-\xff]/.test(s) ? 2 : 1) * s.length;
  return wire(name) + wire(value) + 32;
}

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
  /** Budget reservations and usage rollups (src/usage/). */
  private readonly reservations: Reservations;
  /** While the user's first budgets are being stored: the ids settled or released meanwhile (their handed-over reservation is not inserted). */
  private readonly settlingBudgets = new Set<Set<string>>();
  /** The threads that keep this user's values, told of every change. */
  private readonly readers: EnvReaders;
  /** Writes of the env values in this instance: what its log redactor was made of is current while it stands. */
  private envWrites = 0;

  /**
   * What this account's own console lines are cleaned of besides the Worker's secrets (its log
   * owner, src/secrets/account-logs.ts, reads it): the user's env values and retired secrets. Static:
   * no RPC reaches it.
   */
  static logLevels(account: UserAccount): AccountLogLevels {
    const sql = account.sql;
    return {
      workerEnv: account.env as Readonly<Record<string, unknown>>,
      version: () => account.envWrites,
      read: () => ({ values: sql.exec<{ name: string; value: string; type: string }>("SELECT * FROM account_env").toArray().map((r) => [r.name, r]), retired: new RetiredSecrets(sql).all() }),
    };
  }

  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env as { THREAD?: DurableObjectNamespace });
    this.sql = ctx.storage.sql;
    this.sql.exec(SCHEMA);
    this.sql.exec(RETIRED_SECRETS_SCHEMA);
    this.sql.exec(ACCOUNT_USAGE_SCHEMA);
    migrateAccountUsage(this.sql);
    this.reservations = new Reservations(this.sql, (fn) => ctx.storage.transactionSync(fn));
    this.sql.exec(MCP_CONNECTIONS_SCHEMA);
    migrateMcpConnections(this.sql);
    this.sql.exec(MCP_SERVERS_SCHEMA);
    this.mcpServers = new UserMcpServers(this.sql);
    this.readers = new EnvReaders(this.sql, () => this.env.THREAD);
    this.mcp = new McpConnections(this.sql, env as Record<string, unknown> & { THREAD?: DurableObjectNamespace }, (name) => this.mcpServers.definitionText(name));
  }

  // --- OAuth connections to remote MCP servers (src/account/mcp-connections.ts): the methods only delegate ---
  private readonly mcp: McpConnections;

  async mcpToken(request: McpTokenRequest): Promise<RpcResult<McpTokenAnswer>> {
    return rpc(() => this.mcp.token(request));
  }

  async mcpConnected(server: string, url: string, auth: McpOAuthAuth): Promise<boolean> {
    return this.mcp.has(server, url, auth);
  }

  async mcpAuthorized(state: Record<string, string>, code: string, by: string, iss?: string): Promise<RpcResult<{ server: string; threadId: string }>> {
    return rpc(() => this.mcp.authorized(state, code, by, iss));
  }

  async mcpConnections(): Promise<McpConnectionInfo[]> {
    return this.mcp.list();
  }

  async mcpRevoke(server: string): Promise<RpcResult<{ deleted: boolean }>> {
    return rpc(() => this.mcp.revoke(server));
  }
  // --- end OAuth connections ---

  // --- MCP servers the user added (src/account/mcp-servers.ts): the methods only delegate ---
  private readonly mcpServers: UserMcpServers;

  async userMcpServers(reader?: string): Promise<UserMcpServer[]> {
    // A thread that offers them is told of every change, as a reader of the env values is.
    if (reader !== undefined) this.readers.read(reader);
    return this.mcpServers.list();
  }

  async addUserMcpServer(name: string, definition: McpServerDefinition, max: number): Promise<RpcResult<UserMcpServer>> {
    return rpc(async () => {
      const before = this.userMcpServer(name);
      const added = this.mcpServers.add(name, definition, max);
      if (JSON.stringify(before) !== JSON.stringify(added.definition)) this.readers.changed();
      await this.dropConnection(name, before, definition);
      await this.readers.tell();
      return added;
    });
  }

  async removeUserMcpServer(name: string): Promise<RpcResult<{ deleted: boolean }>> {
    return rpc(async () => {
      const before = this.userMcpServer(name);
      const removed = this.mcpServers.remove(name);
      if (removed.deleted) this.readers.changed();
      await this.dropConnection(name, before);
      // A retry after a write that could not tell every reader tells the rest.
      await this.readers.tell();
      return removed;
    });
  }

  private userMcpServer(name: string): McpServerDefinition | undefined {
    return this.mcpServers.list().find((s) => s.name === name)?.definition;
  }

  /**
   * Revokes the OAuth connection of the user's server `before` once `after` (another definition, or
   * none: removed) holds its name: the tokens were got for that definition
   * (src/account/mcp-connections.ts bindingOf), and kept they would come back with it, no new
   * consent asked. Only that definition's: a declared server of the same name keeps its own.
   */
  private async dropConnection(name: string, before: McpServerDefinition | undefined, after?: McpServerDefinition): Promise<void> {
    if (before?.auth?.type !== "oauth") return;
    const old = await bindingOf(name, before.url, before.auth);
    if (after?.auth?.type === "oauth" && (await bindingOf(name, after.url, after.auth)) === old) return;
    await this.mcp.revoke(name, { url: before.url, auth: before.auth });
  }
  // --- end MCP servers ---

  // --- usage and budgets (src/usage/): the methods only delegate ---

  async reserveBudget(request: ReserveRequest): Promise<RpcResult<ReserveAnswer>> {
    // Synchronous from check to insert: concurrent reservations of this user serialize here.
    const answer = await rpc(() => this.reservations.reserve(request, Date.now(), this.settlingBudgets.size > 0));
    if (answer.ok && answer.value.reserved) await this.leaseAlarm();
    return answer;
  }

  async settleUsage(batch: SettleBatch): Promise<RpcResult<SettleAnswer>> {
    for (const ids of this.settlingBudgets) for (const r of batch.rows) if (r.reservation !== undefined) ids.add(r.reservation);
    return rpc(() => this.reservations.settle(batch));
  }

  async releaseBudget(id: string): Promise<RpcResult<null>> {
    for (const ids of this.settlingBudgets) ids.add(id);
    return rpc(() => (this.reservations.release(id), null));
  }

  async openReservations(): Promise<number> {
    this.reservations.releaseExpired();
    return this.reservations.open();
  }

  async usage(query: AccountUsageQuery): Promise<RpcResult<AccountUsage>> {
    return rpc(() => readAccountUsage(this.sql, query));
  }

  async budgets(): Promise<Budget[]> {
    return userBudgets(this.sql);
  }

  async setBudgets(budgets: unknown): Promise<RpcResult<Budget[]>> {
    return rpc(async () => {
      const checked = checkBudgets(budgets, ["budgets"]);
      if (checked.length > 0) await this.handOver();
      setUserBudgets(this.sql, checked);
      return checked;
    });
  }

  /**
   * Before the user's budgets hold: every thread told the user had none (a watcher) hands over its
   * requests in flight, reserved here, and reserves from then on. A watcher that cannot be reached
   * fails the write (`internal_error`, retryable): a budget never holds while one might not know.
   */
  private async handOver(): Promise<void> {
    const watchers = this.reservations.watchers();
    if (watchers.length === 0) return;
    const ns = this.env.THREAD;
    if (!ns) throw new WeftError("capability_missing", "telling this user's threads of new budgets needs the THREAD Durable Object binding");
    const settled = new Set<string>();
    this.settlingBudgets.add(settled);
    try {
      await handOverWatchers(watchers, {
        tell: (id) => (ns.get(ns.idFromString(id)) as unknown as BudgetWatcher).accountBudgetsSet(),
        record: (told, requests) => this.reservations.handedOver(told, requests.filter((r) => !settled.has(r.id))),
      });
    } finally {
      this.settlingBudgets.delete(settled);
      await this.leaseAlarm();
    }
  }

  /** The alarm that charges reservations whose lease ended (their request never settled: see `Reservations.charge`). */
  override async alarm(): Promise<void> {
    await this.leaseAlarm();
  }

  private async leaseAlarm(): Promise<void> {
    const next = this.reservations.releaseExpired();
    if (next === undefined) return;
    const set = await this.ctx.storage.getAlarm();
    if (set === null || set > next) await this.ctx.storage.setAlarm(next);
  }
  // --- end usage and budgets ---

  async addThread(entry: ThreadEntry, max: number, listed = true): Promise<RpcResult<null>> {
    return rpc(() => {
      // A removed thread's listing, delivered after its removal: the thread is gone.
      if (this.removed(entry.threadId, entry.createdAt)) return null;
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

  /** Whether the thread of `threadId` made at `createdAt` was removed within `REMOVED_KEPT_MS` (see `removeThread`). */
  private removed(threadId: string, createdAt: number | undefined): boolean {
    if (createdAt === undefined) return false;
    const query = "SELECT 1 FROM account_removed WHERE thread_id = ? AND created_at = ? AND removed_at >= ?";
    return this.sql.exec(query, threadId, createdAt, Date.now() - REMOVED_KEPT_MS).toArray().length > 0;
  }

  async removeThread(threadId: string, createdAt?: number): Promise<RpcResult<null>> {
    return rpc(() => {
      if (createdAt !== undefined) {
        const now = Date.now();
        this.sql.exec("DELETE FROM account_removed WHERE removed_at < ?", now - REMOVED_KEPT_MS);
        this.sql.exec("INSERT OR REPLACE INTO account_removed (thread_id, created_at, removed_at) VALUES (?, ?, ?)", threadId, createdAt, now);
      }
      this.sql.exec("DELETE FROM account_threads WHERE thread_id = ?", threadId);
      this.sql.exec("DELETE FROM account_unlisted WHERE thread_id = ?", threadId);
      this.sql.exec("DELETE FROM schedule_counts WHERE thread_id = ?", threadId);
      // A deleted thread has no request to hand over: telling it would be a call wasted per budget write.
      this.sql.exec("DELETE FROM budget_watchers WHERE thread_id = ?", threadId);
      // Nor values to keep, once its rows are gone (named by its lifetime: see core.ts `remove`).
      if (createdAt !== undefined) this.readers.forget(threadId);
      return null;
    });
  }

  async countSchedules(threadId: string, active: number, max: number, createdAt?: number): Promise<RpcResult<null>> {
    return rpc(() => {
      // A removed thread's count, delivered after its removal: it holds no schedule.
      if (this.removed(threadId, createdAt)) return null;
      // Synchronous from the sum to the write: two threads of this user rising at once serialize here.
      const before = this.sql.exec<{ n: number }>("SELECT COALESCE(MAX(active), 0) AS n FROM schedule_counts WHERE thread_id = ?", threadId).one().n;
      const all = this.sql.exec<{ n: number }>("SELECT COALESCE(SUM(active), 0) AS n FROM schedule_counts").one().n;
      if (active > before && all - before + active > max) throw tooManySchedules(all, max);
      if (active > 0) this.sql.exec("INSERT OR REPLACE INTO schedule_counts (thread_id, active) VALUES (?, ?)", threadId, active);
      else this.sql.exec("DELETE FROM schedule_counts WHERE thread_id = ?", threadId);
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
      return { threads, nextCursor: rows.length > options.limit ? threadCursor(threads.at(-1)!) : null };
    });
  }

  async callIdKey(): Promise<string> {
    this.sql.exec("INSERT OR IGNORE INTO account_keys (name, value) VALUES ('call_id', ?)", randomHex(32));
    return this.sql.exec<{ value: string }>("SELECT value FROM account_keys WHERE name = 'call_id'").one().value;
  }

  async envValues(reader?: string): Promise<Record<string, { value: string; type: EnvType }>> {
    if (reader !== undefined) this.readers.read(reader);
    const rows = this.sql.exec<{ name: string; value: string; type: EnvType }>("SELECT * FROM account_env").toArray();
    return Object.fromEntries(rows.map((r) => [r.name, { value: r.value, type: r.type }]));
  }

  async threadEnv(reader?: string): Promise<{ values: Record<string, { value: string; type: EnvType }>; retired: string[] }> {
    return { values: await this.envValues(reader), retired: new RetiredSecrets(this.sql).all() };
  }

  async setEnv(name: string, value: string, type: EnvType): Promise<RpcResult<null>> {
    return rpc(async () => {
      checkStoredBytes(value, ["value"]);
      const rows = this.sql.exec<{ name: string; value: string; type: string }>("SELECT name, value, type FROM account_env").toArray();
      const before = rows.find((row) => row.name === name);
      const others = rows.filter((row) => row !== before);
      // Only a write that adds or grows is refused: one over the limits (from before them) can still replace a value.
      if (before === undefined && others.length >= MAX_ACCOUNT_ENV_VALUES) {
        throw new WeftError("payload_too_large", `name: your account has ${others.length} env values, the most it may; delete one first`, { path: ["name"], limit: MAX_ACCOUNT_ENV_VALUES });
      }
      const rest = others.reduce((n, row) => n + entryWireBytes(row.name, row.value), 0);
      const total = rest + entryWireBytes(name, value);
      if (total > MAX_ACCOUNT_ENV_BYTES && total > rest + (before ? entryWireBytes(name, before.value) : 0)) {
        throw new WeftError("payload_too_large", `value: your account's env values would take ${total} bytes together as a thread reads them, over the ${MAX_ACCOUNT_ENV_BYTES}-byte limit; delete one first`, { path: ["value"], limit: MAX_ACCOUNT_ENV_BYTES });
      }
      // Counted before the writes: whatever of them lands, the next log line's redactor is made anew.
      this.envWrites++;
      this.sql.exec("INSERT OR REPLACE INTO account_env (name, value, type) VALUES (?, ?, ?)", name, value, type);
      new RetiredSecrets(this.sql).change(before as { value: string; type: EnvType } | undefined, { value, type });
      // The same value again (a retry) is no change: it tells the readers the write before left.
      if (before?.value !== value || before.type !== type) this.readers.changed();
      await this.readers.tell();
      return null;
    });
  }

  async deleteEnv(name: string): Promise<RpcResult<{ deleted: boolean }>> {
    return rpc(async () => {
      const before = this.sql.exec<{ value: string; type: EnvType }>("SELECT value, type FROM account_env WHERE name = ?", name).toArray()[0];
      const had = before !== undefined;
      this.envWrites++;
      this.sql.exec("DELETE FROM account_env WHERE name = ?", name);
      new RetiredSecrets(this.sql).change(before, undefined);
      if (had) this.readers.changed();
      await this.readers.tell();
      return { deleted: had };
    });
  }
}
