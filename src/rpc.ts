/**
 * What crosses Durable Object RPC (the Thread's and the UserAccount's): who is calling, and the
 * result shape. Errors cross the boundary as data, because a thrown error loses its code on the
 * way (only the message survives).
 * @module
 */
import { type ErrorBody, WeftError } from "./errors.js";
import { log } from "./log.js";

/** A verified identity: who sent a request, as the auth middleware established it. */
export interface Principal {
  /** Stable id (a JWT's `sub`, or the user an API key was issued to). */
  userId: string;
  /** Display name. */
  name: string;
  roles: string[];
  /**
   * When the credential this principal was verified from stops being valid, in epoch
   * milliseconds: a JWT's `exp`. Absent for API keys (they do not expire). A WebSocket opened with
   * it is closed then (1008, `token expired`).
   */
  expiresAt?: number;
}

/** The principal acting on a thread; `admin` is true when it holds the configured admin role. */
export interface Caller extends Principal {
  admin: boolean;
}

/** What the Worker sends with a request that carried `Idempotency-Key`. */
export interface IdempotencyClaim {
  /** The header's value. */
  key: string;
  /** SHA-256 hex of the method, path and canonical body: a different request under the same key differs here. */
  fingerprint: string;
}

/** `{ ok: true, value }` or `{ ok: false, error: { code, message, details? } }`. */
export type RpcResult<T> = { ok: true; value: T } | { ok: false; error: ErrorBody["error"] };

/** The failure of an {@link RpcResult}, for a method whose success is not wrapped. */
export type RpcFailure = Extract<RpcResult<never>, { ok: false }>;

/** The value of an RPC result. @throws WeftError the refusal it carries, with its code and details. */
export function unwrap<T>(result: RpcResult<T>): T {
  if (result.ok) return result.value;
  throw new WeftError(result.error.code, result.error.message, result.error.details);
}

/** Runs `fn`, turning a WeftError into `{ ok: false }`; any other throw becomes `internal_error`. */
export async function rpc<T>(fn: () => T | Promise<T>): Promise<RpcResult<T>> {
  try {
    return { ok: true, value: await fn() };
  } catch (e) {
    return rpcFailure(e);
  }
}

/**
 * What {@link rpc} answers for a throw: a WeftError as `{ ok: false }`, anything else as
 * `internal_error` saying only that, its message and stack in the Worker's log: an unexpected
 * exception's text is the runtime's, not the caller's to read (the HTTP answer of one is the same).
 */
export function rpcFailure(e: unknown): RpcFailure {
  if (e instanceof WeftError) return { ok: false, error: e.toBody().error };
  log("error", "weft: internal error", e);
  return { ok: false, error: { code: "internal_error", message: "internal error (the Worker's log has its cause)" } };
}
