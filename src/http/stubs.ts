/**
 * Reaching Thread Durable Objects from the Worker: id parsing that never 500s, and RPC results
 * turned back into thrown WeftErrors.
 * @module
 */
import { WeftError } from "../errors.js";
import type { RpcResult } from "../thread/rpc.js";
import type { WeftEnv, createThreadClass } from "../thread/durable.js";

/** The RPC surface of a Thread stub. */
export type ThreadStub = DurableObjectStub & Omit<InstanceType<ReturnType<typeof createThreadClass>>, "fetch" | "alarm" | "webSocketMessage" | "webSocketClose"> & {
  fetch(request: Request): Promise<Response>;
};

/**
 * The stub for a thread id (64 hex characters, as `POST /threads` returns).
 * @throws WeftError `thread_not_found` for an id that cannot name a thread.
 */
export function threadStub(env: WeftEnv, threadId: string, code: "thread_not_found" | "session_not_found" = "thread_not_found"): ThreadStub {
  let id: DurableObjectId;
  try {
    id = env.THREAD.idFromString(threadId);
  } catch {
    throw new WeftError(code, `no thread ${JSON.stringify(threadId)}`, { path: [code === "thread_not_found" ? "id" : "sessionId"] });
  }
  return env.THREAD.get(id) as unknown as ThreadStub;
}

/** The value of an RPC result, or its error thrown as a WeftError. */
export function unwrap<T>(result: RpcResult<T>): T {
  if (result.ok) return result.value;
  throw new WeftError(result.error.code, result.error.message, result.error.details);
}
