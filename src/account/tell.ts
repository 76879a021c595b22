/**
 * Telling a user's threads something from one account request, within a Worker invocation's
 * subrequest limit (1000 on Cloudflare): one call per thread, at most {@link TELL_BATCH} at a time
 * and {@link TELL_PER_REQUEST} in one request. Each batch is recorded as it completes, so a request
 * with more threads than it may tell fails retryably having made progress, and its retries finish
 * the list.
 * @module
 */
import { WeftError, errorMessage } from "../errors.js";

/** Threads told at once. */
export const TELL_BATCH = 50;

/** Threads told in one request, at most (under the subrequest limit of 1000, with room for the request's other calls). */
export const TELL_PER_REQUEST = 800;

/**
 * Tells `threadIds` in batches (`tell`, one call each) and records each batch: the threads that answered, with their answers.
 * `news` completes "could not be told ..." in the errors (say, "of the new budgets").
 * @throws WeftError `internal_error` (retryable) naming the thread when one cannot be reached, or
 * naming how many are left when there are more than one request may tell.
 */
export async function tellThreads<T>(
  threadIds: readonly string[],
  news: string,
  tell: (threadId: string) => Promise<T>,
  record: (told: readonly string[], answers: T[]) => void,
  limits = { batch: TELL_BATCH, perRequest: TELL_PER_REQUEST },
): Promise<void> {
  const now = threadIds.slice(0, limits.perRequest);
  for (let i = 0; i < now.length; i += limits.batch) {
    const batch = now.slice(i, i + limits.batch);
    const settled = await Promise.allSettled(batch.map((id) => tell(id)));
    // The threads that answered are recorded even when another failed: a retry need not tell them again.
    const told = batch.filter((_id, j) => settled[j]!.status === "fulfilled");
    record(told, settled.flatMap((s) => (s.status === "fulfilled" ? [s.value] : [])));
    const failed = settled.findIndex((s) => s.status === "rejected");
    if (failed !== -1) {
      const id = batch[failed]!;
      throw new WeftError("internal_error", `thread ${id} could not be told ${news} (${errorMessage((settled[failed] as PromiseRejectedResult).reason)}); try again`, { threadId: id });
    }
  }
  const left = threadIds.length - now.length;
  if (left > 0) {
    throw new WeftError("internal_error", `${now.length} of this user's threads were told ${news}, ${left} are left (at most ${limits.perRequest} a request); try again`, { left });
  }
}
