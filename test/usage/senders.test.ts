/**
 * The account counts each thread's usage rows by their number, and each thread made on an id
 * numbers them from 1: a batch says when its thread was created, so a thread made again after a
 * delete starts a count of its own, a deleted thread's late rows are dropped, and a count kept
 * before batches said so (a thread older than the deploy, a meter of the old code) goes on.
 */
import { describe, expect, it } from "vitest";
import type { SettleBatch } from "../../src/usage/reservations.js";
import { accountOfUser, freshUser } from "./users.js";

const row = (n: number) => ({
  row: n,
  turnId: `turn_${n}`,
  model: "openai:gpt-4.1",
  inputTokens: 100,
  outputTokens: 10,
  cachedInputTokens: 0,
  reasoningTokens: 0,
  cacheWriteTokens: 0,
  estimated: false,
  durationMs: 1,
  costMicroUsd: 1000,
  at: Date.UTC(2026, 11, 1),
});

/** Settles rows `from`..`to` of thread `thread_x`, with `createdAt` when given; answers the account's `behind`. */
async function settle(userId: string, from: number, to: number, createdAt?: number): Promise<number | null> {
  const batch: SettleBatch = { threadId: "thread_x", agentId: "metered", fromRow: from, rows: Array.from({ length: to - from + 1 }, (_, i) => row(from + i)), ...(createdAt !== undefined ? { createdAt } : {}) };
  const answer = await accountOfUser(userId).settleUsage(batch);
  if (!answer.ok) throw new Error(answer.error.message);
  return answer.value.behind;
}

async function requests(userId: string): Promise<number> {
  const usage = await accountOfUser(userId).usage({});
  if (!usage.ok) throw new Error(usage.error.message);
  return usage.value.total.requests;
}

describe("the account's count of a thread's rows", () => {
  it("goes on for a thread counted before batches said when it was created: nothing counted twice", async () => {
    const { userId } = await freshUser("senders");
    expect(await settle(userId, 1, 2)).toBeNull();
    expect(await settle(userId, 3, 3, 1_700_000_000_000)).toBeNull();
    expect(await settle(userId, 3, 4, 1_700_000_000_000)).toBeNull();
    // An old meter's batch for the same thread (a mixed rollout, a rollback) goes on with the same count.
    expect(await settle(userId, 4, 5)).toBeNull();
    expect(await requests(userId)).toBe(5);
  });

  it("starts again for a thread made on the id after a count that does not say whose it is, when its rows begin at rows the account has", async () => {
    const { userId } = await freshUser("senders");
    // A thread counted before the deploy (or by old code after a rollback): its count says no thread.
    expect(await settle(userId, 1, 3)).toBeNull();
    // Deleted, then made again on the id by the new code: its rows 1 and 2 count.
    expect(await settle(userId, 1, 2, 5000)).toBeNull();
    expect(await requests(userId)).toBe(5);
  });

  it("counts nothing twice when old and new code serve a thread made again on the id in turn (a mixed rollout)", async () => {
    const { userId } = await freshUser("senders");
    expect(await settle(userId, 1, 3, 1000)).toBeNull();
    // The thread made again (at 2000) is served by old code first: it goes on with the deleted thread's count (its rows 1 to 3 are lost, as they always were).
    expect(await settle(userId, 1, 4)).toBeNull();
    // Then by new code: its next row goes on from there, and no row is sent twice.
    expect(await settle(userId, 5, 5, 2000)).toBeNull();
    expect(await requests(userId)).toBe(5);
  });

  it("starts again for a thread made later on the id, and drops the deleted thread's late rows", async () => {
    const { userId } = await freshUser("senders");
    expect(await settle(userId, 1, 3, 1000)).toBeNull();
    // The thread made again numbers from 1: its rows count.
    expect(await settle(userId, 1, 2, 2000)).toBeNull();
    expect(await requests(userId)).toBe(5);
    // A late batch of the deleted thread is dropped; the new thread's count is untouched.
    expect(await settle(userId, 4, 4, 1000)).toBeNull();
    expect(await settle(userId, 3, 3, 2000)).toBeNull();
    expect(await requests(userId)).toBe(6);
    // A later thread whose first batch starts past row 1 is asked for its rows from the first.
    expect(await settle(userId, 2, 2, 3000)).toBe(0);
    expect(await settle(userId, 1, 2, 3000)).toBeNull();
    expect(await requests(userId)).toBe(8);
  });
});
