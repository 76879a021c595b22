/**
 * Reaching Durable Objects from the Worker: thread ids parsed without ever a 500, and the one
 * typed RPC interface (`ThreadApi`, which the Thread class implements).
 * @module
 */
import { WeftError, quotedValue } from "../errors.js";
import type { AccountApi } from "../account/api.js";
import { accountOf } from "../account/api.js";
import type { Caller } from "../rpc.js";
import type { ThreadApi } from "../thread/api.js";
import type { WeftEnv } from "../thread/durable.js";

/**
 * The stub for a thread id (64 hex characters, as `POST /threads` returns).
 * @throws WeftError `thread_not_found` (or `session_not_found`) for an id that cannot name a thread.
 */
export function threadStub(env: WeftEnv, threadId: string, code: "thread_not_found" | "session_not_found" = "thread_not_found"): ThreadApi {
  let id: DurableObjectId;
  try {
    id = parsedId(env.THREAD, threadId);
  } catch {
    throw new WeftError(code, `no thread ${quotedValue(threadId)}`, { path: [code === "thread_not_found" ? "id" : "sessionId"] });
  }
  return env.THREAD.get(id) as unknown as ThreadApi;
}

/** Ids kept per namespace at most; past that the kept ones are dropped and parsing starts over. */
const MAX_PARSED_IDS = 1024;
const parsedIds = new WeakMap<DurableObjectNamespace, Map<string, DurableObjectId>>();

/**
 * `ns.idFromString(threadId)`, kept for the next request naming the same thread: parsing checks
 * the id's signature, which cost about as much Worker CPU as the rest of a direct call's checks.
 * An id is a plain value, not tied to the request that made it (a stub is; it is made per request).
 * A string that is no id throws each time and is never kept.
 */
function parsedId(ns: DurableObjectNamespace, threadId: string): DurableObjectId {
  let ids = parsedIds.get(ns);
  if (ids === undefined) parsedIds.set(ns, (ids = new Map()));
  let id = ids.get(threadId);
  if (id === undefined) {
    id = ns.idFromString(threadId);
    if (ids.size >= MAX_PARSED_IDS) ids.clear();
    ids.set(threadId, id);
  }
  return id;
}

/** The thread a continuation token names for this caller: the same token from two users names two threads. */
export function tokenThread(env: WeftEnv, caller: Caller, token: string): { id: DurableObjectId; stub: ThreadApi } {
  // JSON keeps the pair unambiguous: user "a:b" with token "c" is not user "a" with token "b:c".
  const id = env.THREAD.idFromName(`ct:${JSON.stringify([caller.userId, token])}`);
  return { id, stub: env.THREAD.get(id) as unknown as ThreadApi };
}

/**
 * The thread an `Idempotency-Key` names for this caller: a retried create (`kind` "thread") or a
 * retried direct call without a session (`kind` "call") reaches the thread the first one made.
 */
export function keyedThread(env: WeftEnv, caller: Caller, kind: "thread" | "call", key: string): { id: DurableObjectId; stub: ThreadApi } {
  const id = env.THREAD.idFromName(`idem:${JSON.stringify([kind, caller.userId, key])}`);
  return { id, stub: env.THREAD.get(id) as unknown as ThreadApi };
}

/** A fresh thread id and its stub. */
export function newThread(env: WeftEnv): { id: DurableObjectId; stub: ThreadApi } {
  const id = env.THREAD.newUniqueId();
  return { id, stub: env.THREAD.get(id) as unknown as ThreadApi };
}

/** The caller's UserAccount, or null when the Worker has no `ACCOUNT` binding. */
export function accountStub(env: WeftEnv, caller: Caller): AccountApi | null {
  return env.ACCOUNT ? accountOf(env.ACCOUNT, caller.userId) : null;
}

