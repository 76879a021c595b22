/**
 * Reaching Thread Durable Objects from the Worker: id parsing that never 500s, and RPC results
 * turned back into thrown WeftErrors.
 * @module
 */
import { WeftError } from "../errors.js";
import type { CallRecord, Message } from "../protocol.js";
import type { Settlement } from "../tools/decide.js";
import type { CallOutcome } from "../tools/host.js";
import type { GetMessagesOptions, MessagesResult } from "../tools/thread-state.js";
import type { DirectCallInput, DirectCallOutcome } from "../thread/direct.js";
import type { CreateThreadInput, ThreadInfo, WeftEnv } from "../thread/durable.js";
import type { RpcResult } from "../thread/rpc.js";
import type { ThreadMeta } from "../thread/store/meta.js";

/** The RPC surface of a Thread stub, spelled out (deriving it from the class is too deep for tsc). */
export interface ThreadStub {
  fetch(request: Request): Promise<Response>;
  create(input: CreateThreadInput, threadId: string): Promise<RpcResult<ThreadMeta>>;
  info(): Promise<RpcResult<ThreadInfo>>;
  getMessages(options: GetMessagesOptions): Promise<RpcResult<MessagesResult>>;
  postMessage(input: { content: string; role?: "user" | "system"; script?: unknown }): Promise<RpcResult<{ queued: boolean; message?: Message }>>;
  listCalls(options?: { status?: CallRecord["status"]; limit?: number; offset?: number }): Promise<RpcResult<{ calls: CallRecord[] }>>;
  getCall(callId: string): Promise<RpcResult<CallRecord>>;
  approve(callId: string, approvedBy: string, argsHash?: string): Promise<RpcResult<CallOutcome>>;
  deny(callId: string, deniedBy: string, reason?: string): Promise<RpcResult<CallOutcome>>;
  settle(callId: string, settlement: Settlement): Promise<RpcResult<CallOutcome>>;
  getFile(path: string): Promise<RpcResult<{ mimeType: string; size: number; data: string }>>;
  callTool(input: DirectCallInput): Promise<RpcResult<DirectCallOutcome>>;
  stop(): Promise<RpcResult<{ stopped: boolean }>>;
  waitIdle(): Promise<RpcResult<null>>;
  destroy(): Promise<RpcResult<null>>;
}

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
