/**
 * The UserAccount's RPC interface and how the rest of weft reaches it: the account stub of a user
 * and the per-user thread count every new thread goes through. The Durable Object is durable.ts.
 * @module
 */
import { limitOf } from "../limits.js";
import type { EnvType } from "../protocol.js";
import type { RpcResult } from "../rpc.js";
import type { AccountUsage, AccountUsageQuery } from "../usage/reports.js";
import type { Budget } from "../usage/budgets.js";
import type { McpConnectionInfo, McpTokenAnswer, McpTokenRequest } from "./mcp-connections.js";
import type { ThreadPage, UserMcpServer } from "./types.js";
import type { McpOAuthAuth, McpServerDefinition } from "../remote/define.js";
import type { ReserveAnswer, ReserveRequest, SettleAnswer, SettleBatch } from "../usage/reservations.js";

import type { AccountEntry as ThreadEntry } from "../ports/threads.js";

/** One thread in a user's index (defined with the threads port). */
export type { AccountEntry as ThreadEntry } from "../ports/threads.js";

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
  /**
   * The user's key for direct calls' ids under an Idempotency-Key (`keyedCallId`): 32 random bytes
   * as hex, made on first ask and never changed, so a repeat in a thread made again gets the same id.
   */
  callIdKey(): Promise<string>;
  /**
   * Sets how many active schedules the user's thread `threadId` holds (0 drops its row). A rise
   * is refused when the user's threads would then hold more than `max` together; a fall or the
   * same count never is. `removeThread` drops the thread's count too. `createdAt` names the thread
   * that counts (its lifetime on the id): a count of a removed one is dropped.
   * @throws WeftError `too_many_schedules` (409, `details.limit`) at the limit; nothing is written then.
   */
  countSchedules(threadId: string, active: number, max: number, createdAt?: number): Promise<RpcResult<null>>;
  /**
   * Frees the thread's slot (listed or not) and its schedules' count; a thread not counted changes
   * nothing. With the removed thread's `createdAt`, a listing (`addThread`) or schedule count that
   * names that thread and arrives later (sent before the removal, delivered after) is dropped, for
   * a day (`REMOVED_KEPT_MS`): it would list a deleted thread, or count for it, for good.
   */
  removeThread(threadId: string, createdAt?: number): Promise<RpcResult<null>>;
  /** @throws WeftError `invalid_request` for a cursor this index did not issue. */
  listThreads(options: { limit: number; cursor?: string }): Promise<RpcResult<ThreadPage>>;
  /**
   * Every env value with its type (for resolution and redaction inside the user's threads). A
   * `reader` thread is told of every later change (`accountEnvChanged`), so it may keep the values
   * instead of asking again on every request.
   */
  envValues(reader?: string): Promise<Record<string, { value: string; type: EnvType }>>;
  /**
   * What the user's threads read of the account in one answer: {@link envValues}'s values, and the
   * secret values it held and no longer holds (replaced or deleted; at most 32, newest first), which
   * the threads keep redacting (src/account/retired-secrets.ts).
   */
  threadEnv(reader?: string): Promise<{ values: Record<string, { value: string; type: EnvType }>; retired: string[] }>;
  setEnv(name: string, value: string, type: EnvType): Promise<RpcResult<null>>;
  deleteEnv(name: string): Promise<RpcResult<{ deleted: boolean }>>;
  // --- usage and budgets (src/usage/) ---
  /** Reserves a model request's maximum against every budget that applies, or refuses (src/usage/reservations.ts). */
  reserveBudget(request: ReserveRequest): Promise<RpcResult<ReserveAnswer>>;
  /**
   * Rolls up a thread's answered requests, each settling its reservation (if it made one), in the
   * order of the thread's ledger: a row sent twice counts once, and a batch that skips rows is
   * answered with the last row the account has (src/usage/reservations.ts).
   */
  settleUsage(batch: SettleBatch): Promise<RpcResult<SettleAnswer>>;
  /** Releases a reservation whose request got no answer. */
  releaseBudget(id: string): Promise<RpcResult<null>>;
  /** Reservations open now (budget-race and tests check that none leaked). */
  openReservations(): Promise<number>;
  /** `GET /account/usage`: the total and a page of groups. @throws WeftError `invalid_request` for a malformed `from`, `to`, `groupBy` or `limit`. */
  usage(query: AccountUsageQuery): Promise<RpcResult<AccountUsage>>;
  /** The user's own budgets. */
  budgets(): Promise<Budget[]>;
  /** Replaces the user's own budgets. @throws WeftError `invalid_request` naming the bad entry. */
  setBudgets(budgets: unknown): Promise<RpcResult<Budget[]>>;
  // --- OAuth connections to remote MCP servers (src/account/mcp-connections.ts) ---
  /**
   * A token for the server at `request.url`: the kept one (refreshed before expiry, or when the
   * server refused `request.rejected`), else the URL of a new authorization for the thread.
   * @throws WeftError `mcp_*` when discovery, registration or refresh fail; `capability_missing`
   * without `WEFT_MCP_OAUTH_KEY` or `WEFT_PUBLIC_URL`.
   */
  mcpToken(request: McpTokenRequest): Promise<RpcResult<McpTokenAnswer>>;
  /** Whether the user holds tokens for the server at `url`. */
  mcpConnected(server: string, url: string, auth: McpOAuthAuth): Promise<boolean>;
  /**
   * Completes the authorization a verified `state` names with its `code`, for the verified weft
   * user `by` (who must be the one who started it), and wakes its thread; `iss` is the response's
   * issuer (RFC 9207), if it named one.
   * @throws WeftError `mcp_wrong_user` (403) when `by` is another user (the authorization stays
   * open); `invalid_request` (path `state`) for no such authorization, (path `iss`) for another
   * issuer than the one asked, (path `code`) when the code is refused; `mcp_unreachable` when it
   * could not be traded now (the authorization stays open after either).
   */
  mcpAuthorized(state: Record<string, string>, code: string, by: string, iss?: string): Promise<RpcResult<{ server: string; threadId: string }>>;
  /** The user's connections (no tokens). */
  mcpConnections(): Promise<McpConnectionInfo[]>;
  /** Removes the tokens of the connections to servers named `server`. */
  mcpRevoke(server: string): Promise<RpcResult<{ deleted: boolean }>>;
  // --- MCP servers the user added at run time (src/account/mcp-servers.ts) ---
  /** The servers the user added, by name. A `reader` thread is told of every later change (`accountEnvChanged`, as for env values). */
  userMcpServers(reader?: string): Promise<UserMcpServer[]>;
  /**
   * Adds or replaces one (checked already: src/remote/define.ts `checkUserMcpServer`).
   * @throws WeftError `invalid_request` (path `name`) past `max` servers.
   */
  addUserMcpServer(name: string, definition: McpServerDefinition, max: number): Promise<RpcResult<UserMcpServer>>;
  /** Removes one, and its OAuth connection (its tokens): the user's threads use them no more. */
  removeUserMcpServer(name: string): Promise<RpcResult<{ deleted: boolean }>>;
}

/**
 * The `cursor` of `GET /threads` (and `GET /account/waiting`) whose page starts just after `entry`
 * in the index's order (newest first): an opaque base64 text the account reads back.
 */
export const threadCursor = (entry: { createdAt: number; threadId: string }): string => btoa(`${entry.createdAt}:${entry.threadId}`);

/** What the account needs of a thread that keeps its env values: the change notice (the Thread's `accountEnvChanged`). */
export interface EnvReader {
  /** The account's env values changed; `live: false` from a thread that no longer exists. */
  accountEnvChanged(): Promise<{ live: boolean }>;
}

/** What a thread answers its owner's account when the user sets budgets (`ThreadApi.accountBudgetsSet`). */
export interface BudgetWatcher {
  /** The user set budgets: reserve every request from now on; returns the requests in flight that reserved nothing. */
  accountBudgetsSet(): Promise<ReserveRequest[]>;
}

/** The account stub of a user. */
export function accountOf(ns: DurableObjectNamespace, userId: string): AccountApi {
  return ns.get(ns.idFromName(userId)) as unknown as AccountApi;
}

/** Keys already fetched, per user (a key never changes); dropped all at once past 1000 users. */
const callIdKeys = new Map<string, Promise<string>>();

/**
 * The key a direct call's id is keyed with for `userId` (`keyedCallId`): the user's, kept by the
 * account so it outlives any one thread (a scratch thread made again for a repeat of its key gives
 * the same call id, so the same effect key); without accounts, the thread's own (`threadKey`).
 */
export function callIdKeyOf(ns: DurableObjectNamespace | undefined, userId: string, threadKey: () => string): Promise<string> {
  if (!ns) return Promise.resolve(threadKey());
  let key = callIdKeys.get(userId);
  if (!key) {
    if (callIdKeys.size >= 1000) callIdKeys.clear();
    key = accountOf(ns, userId).callIdKey();
    // A failed ask is asked again next time.
    key.catch(() => callIdKeys.delete(userId));
    callIdKeys.set(userId, key);
  }
  return key;
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
