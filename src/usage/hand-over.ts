/**
 * Telling a user's watchers (threads told the user had no budgets) of the user's first budgets,
 * within a Worker invocation's subrequest limit (1000 on Cloudflare): one call per watcher, at most
 * {@link HAND_OVER_BATCH} at a time and {@link HAND_OVER_PER_CALL} in one `PUT /account/budgets`.
 * Each batch's hand-over is recorded as it completes, so a write that has more watchers than one
 * call may tell fails retryably having made progress, and its retries finish the list.
 * @module
 */
import { WeftError, errorMessage } from "../errors.js";
import type { ReserveRequest } from "./reservations.js";

/** Watchers told at once. */
export const HAND_OVER_BATCH = 50;

/** Watchers told in one call, at most (under the subrequest limit of 1000, with room for the call's other requests). */
export const HAND_OVER_PER_CALL = 800;

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
export async function handOverWatchers(watchers: readonly string[], host: HandOverHost, limits = { batch: HAND_OVER_BATCH, perCall: HAND_OVER_PER_CALL }): Promise<void> {
  const now = watchers.slice(0, limits.perCall);
  for (let i = 0; i < now.length; i += limits.batch) {
    const batch = now.slice(i, i + limits.batch);
    const handed = await Promise.all(
      batch.map((id) =>
        host.tell(id).catch((e: unknown) => {
          throw new WeftError("internal_error", `thread ${id} could not be told of the new budgets (${errorMessage(e)}); try again`, { threadId: id });
        }),
      ),
    );
    host.record(batch, handed.flat());
  }
  const left = watchers.length - now.length;
  if (left > 0) {
    throw new WeftError("internal_error", `${now.length} of this user's threads were told of the new budgets, ${left} are left (at most ${limits.perCall} a request); try again`, { left });
  }
}
