/**
 * Who may reach a thread ({@link checkAccess}). Which secrets its answers are cleaned of is
 * src/secrets/ (`ThreadSecrets`).
 * @module
 */
import { WeftError, noSuchThread } from "../errors.js";
import { isReservedUserId } from "../ids.js";
import type { Caller } from "../rpc.js";

/** How long a direct call's scratch thread may live before its alarm removes it (ms). */
export const SCRATCH_TTL_MS = 10 * 60 * 1000;

/** What a request answers that finds no thread (defined with the errors, so runs can answer it too). */
export { noSuchThread };

/**
 * Whether `caller` may reach a thread owned by `owner` for `access`: its owner may; an admin reads
 * any, and acts on one of a reserved `weft:` owner (a file schedule's), where no person could.
 * @throws WeftError `thread_not_found` otherwise: existence does not leak (never 403).
 */
export function checkAccess(owner: string | null, caller: Caller, access: "read" | "write"): void {
  if (owner !== null && owner === caller.userId) return;
  if (caller.admin && (access === "read" || (owner !== null && isReservedUserId(owner)))) return;
  throw noSuchThread();
}

/** The WeftError `fn` throws, or null; any other throw passes through. */
export function thrownError(fn: () => unknown): WeftError | null {
  try {
    fn();
    return null;
  } catch (e) {
    if (e instanceof WeftError) return e;
    throw e;
  }
}

/** Parses the `x-weft-caller` header the Worker sets; null when it is missing or malformed. */
export function callerFromHeader(raw: string | null): Caller | null {
  if (!raw) return null;
  try {
    const c = JSON.parse(raw) as Caller;
    return typeof c.userId === "string" && Array.isArray(c.roles) ? c : null;
  } catch {
    return null;
  }
}
