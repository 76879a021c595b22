/**
 * Transient failures and the retry policy of read and idempotent calls (the Agent SDK tools reference: default 3
 * attempts; the final error is the last attempt's message, unchanged).
 * @module
 */

/** Attempts a read or idempotent call gets by default. */
export const DEFAULT_MAX_ATTEMPTS = 3;

/**
 * Thrown by a tool to say "the service was briefly unavailable; the same call may succeed".
 * Read and idempotent calls are retried on it; writes never are.
 */
export class TransientError extends Error {
  /** Always `TransientError`. */
  override readonly name = "TransientError";
  /** HTTP status behind the failure, when there was one. */
  readonly status?: number;

  /**
   * @param message what failed; the last attempt's message is the call's error when no retry succeeds
   * @param options the HTTP `status` behind the failure and its `cause`
   */
  constructor(message: string, options?: { status?: number; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    if (options?.status !== undefined) this.status = options.status;
  }
}

/** HTTP statuses that mean "try again": 408, 429 and every 5xx. */
export function isTransientStatus(status: number): boolean {
  return status === 408 || status === 429 || (status >= 500 && status <= 599);
}

/**
 * Throws a {@link TransientError} for a 408/429/5xx response and returns any other response.
 * @example
 * const res = throwIfTransient(await fetch(url));
 * @throws TransientError carrying the status.
 */
export function throwIfTransient(response: Response): Response {
  if (isTransientStatus(response.status)) {
    throw new TransientError(`HTTP ${response.status} ${response.statusText}`.trim(), { status: response.status });
  }
  return response;
}

/**
 * True when a thrown value is transient: a {@link TransientError} (by class or name, so one from
 * another bundle counts) or a network failure of `fetch`.
 */
export function isTransient(thrown: unknown): boolean {
  if (!(thrown instanceof Error)) return false;
  if (thrown instanceof TransientError || thrown.name === "TransientError") return true;
  // fetch rejects with a TypeError when the network fails (no HTTP response at all).
  return thrown instanceof TypeError && /network|fetch failed|connection|ECONN|socket|timed? ?out/i.test(thrown.message);
}

/** Delay before attempt `n + 1` (n >= 1): 100 ms doubling, capped at 2 s, with jitter. */
export function backoffMs(attempt: number, random = Math.random): number {
  const base = Math.min(2000, 100 * 2 ** (attempt - 1));
  return Math.round(base / 2 + random() * (base / 2));
}
