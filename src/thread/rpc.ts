/**
 * The result shape of Thread RPC methods. Errors cross the RPC boundary as data, because a thrown
 * error loses its code on the way (only the message survives).
 * @module
 */
import { type ErrorBody, WeftError, errorMessage } from "../errors.js";

/** `{ ok: true, value }` or `{ ok: false, error: { code, message, details? } }`. */
export type RpcResult<T> = { ok: true; value: T } | { ok: false; error: ErrorBody["error"] };

/** The failure of an {@link RpcResult}, for a method whose success is not wrapped. */
export type RpcFailure = Extract<RpcResult<never>, { ok: false }>;

/** Runs `fn`, turning a WeftError into `{ ok: false }`; any other throw becomes `internal_error`. */
export async function rpc<T>(fn: () => T | Promise<T>): Promise<RpcResult<T>> {
  try {
    return { ok: true, value: await fn() };
  } catch (e) {
    return rpcFailure(e);
  }
}

/** What {@link rpc} answers for a throw: a WeftError as `{ ok: false }`, anything else as `internal_error` (and logged). */
export function rpcFailure(e: unknown): RpcFailure {
  if (e instanceof WeftError) return { ok: false, error: e.toBody().error };
  console.error("weft: internal error", e);
  return { ok: false, error: { code: "internal_error", message: errorMessage(e) } };
}
