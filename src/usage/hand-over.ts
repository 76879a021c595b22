/**
 * Telling a user's watchers (threads told the user had no budgets) of the user's first budgets,
 * within a Worker invocation's subrequest limit: in batches, at most {@link HAND_OVER_PER_CALL} in
 * one `PUT /account/budgets`, each batch's hand-over recorded as it completes (see `tellThreads`).
 * @module
 */
import { TELL_BATCH, TELL_PER_REQUEST, tellThreads } from "../account/tell.js";
import type { ReserveRequest } from "./reservations.js";

/** Watchers told at once. */
export const HAND_OVER_BATCH = TELL_BATCH;

/** Watchers told in one call, at most (under the subrequest limit of 1000, with room for the call's other requests). */
export const HAND_OVER_PER_CALL = TELL_PER_REQUEST;

/** What {@link handOverWatchers} needs of the account. */
export interface HandOverHost {
  /** Asks watcher `threadId` to hand over its requests in flight (`accountBudgetsSet`). */
  tell(threadId: string): Promise<ReserveRequest[]>;
  /** Records one batch: its watchers are no watchers any more, its requests are reserved. */
  record(watchers: readonly string[], requests: readonly ReserveRequest[]): void;
}

/**
 * Tells `watchers` in batches and records each batch.
 * @throws WeftError `internal_error` (retryable) naming the thread when a watcher cannot be
 * reached, or naming how many are left when there are more than one call may tell.
 */
export function handOverWatchers(watchers: readonly string[], host: HandOverHost, limits = { batch: HAND_OVER_BATCH, perCall: HAND_OVER_PER_CALL }): Promise<void> {
  return tellThreads(watchers, "of the new budgets", (id) => host.tell(id), (told, handed) => host.record(told, handed.flat()), { batch: limits.batch, perRequest: limits.perCall });
}
