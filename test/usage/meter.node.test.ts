/**
 * The meter's cost on a turn (src/usage/meter.ts): a thread whose requests no budget can apply to
 * asks its account once (to learn that the user has no budgets of their own), not twice per
 * request, never waits for the rollup and sends the usage of many requests in one message; a
 * budget of the agent still reserves every request and settles each at once; when the user sets
 * budgets the thread hands over its requests in flight and its unsent usage and reserves again;
 * and rows a crash kept from the account are sent with the next batch. The account is a fake that
 * counts what it is asked.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { AccountApi } from "../../src/account/api.js";
import type { Budget } from "../../src/usage/budgets.js";
import { ROLLUP_BATCH, ROLLUP_DELAY_MS, ThreadMeter } from "../../src/usage/meter.js";
import type { ReserveRequest, SettleBatch } from "../../src/usage/reservations.js";
import type { ThreadUsageLedger } from "../../src/usage/thread-ledger.js";

/**
 * An account that answers reservations at once and holds every settle until `settleAll`; it has
 * rows up to `last` of the thread and answers `behind` for a batch that skips some.
 */
function fakeAccount(userBudgets: boolean, last = 0) {
  const calls = { reserve: [] as ReserveRequest[], settle: [] as SettleBatch[], release: 0 };
  const held: Array<() => void> = [];
  const account = {
    last,
    async reserveBudget(r: ReserveRequest) {
      calls.reserve.push(r);
      return { ok: true, value: { reserved: true, budgets: r.budgets.length, userBudgets } };
    },
    settleUsage(batch: SettleBatch) {
      calls.settle.push(batch);
      const behind = batch.fromRow > account.last + 1 ? account.last : null;
      if (behind === null) account.last = Math.max(account.last, ...batch.rows.map((r) => r.row));
      return new Promise((resolve) => held.push(() => resolve({ ok: true, value: { behind } })));
    },
    async releaseBudget() {
      calls.release++;
      return { ok: true, value: null };
    },
  };
  return { account: account as unknown as AccountApi, calls, settleAll: () => held.splice(0).forEach((f) => f()) };
}

/** A ledger over an array: row ids from `first`. */
function meterOf(account: AccountApi, agentBudgets?: Budget[], first = 1) {
  const rows: unknown[] = [];
  const deferred: Promise<unknown>[] = [];
  const meter = new ThreadMeter({
    threadId: "t1",
    createdAt: 1,
    agentId: "metered",
    ...(agentBudgets ? { agentBudgets } : {}),
    workerEnv: {},
    account,
    ledger: {
      record: (row: unknown) => rows.push(row) + first - 1,
      between: (after: number, before: number) => rows.slice(Math.max(0, after + 1 - first), before - first).map((usage, i) => ({ row: Math.max(after + 1, first) + i, usage })),
    } as unknown as ThreadUsageLedger,
    refused: () => undefined,
    defer: (work) => deferred.push(work),
  });
  return { meter, rows, deferred };
}

const request = (step: number) => ({ turnId: "turn1", step, model: "openai-chat:gpt-4.1-mini", messages: [], tools: [] });
const usage = { inputTokens: 10, outputTokens: 2 };

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("the meter's cost on a turn", () => {
  it("asks the account once per instance when no budget can apply, and answers without waiting for the rollup", async () => {
    const { account, calls, settleAll } = fakeAccount(false);
    const { meter, rows, deferred } = meterOf(account);
    for (let step = 1; step <= 4; step++) {
      const ticket = await meter.begin(request(step));
      // Resolves while the account still holds every settle: the rollup is off the turn's path.
      await meter.answered(ticket, usage, "ok");
    }
    expect(calls.reserve).toHaveLength(1);
    expect(rows).toHaveLength(4);
    // The first request reserved (to learn there are no user budgets): settled at once.
    expect(calls.settle.map((b) => b.rows.map((r) => [r.row, r.reservation !== undefined]))).toEqual([[[1, true]]]);
    // The rest reserved nothing: one message for all three, a moment later.
    vi.advanceTimersByTime(ROLLUP_DELAY_MS);
    expect(calls.settle).toHaveLength(2);
    expect(calls.settle[1]).toMatchObject({ threadId: "t1", agentId: "metered", fromRow: 2 });
    expect(calls.settle[1]!.rows.map((r) => [r.row, r.reservation, r.inputTokens, r.outputTokens])).toEqual([2, 3, 4].map((n) => [n, undefined, 10, 2]));
    settleAll();
    await Promise.all(deferred);
  });

  it("sends at once once a batch is full", async () => {
    const { account, calls } = fakeAccount(false);
    const { meter } = meterOf(account);
    for (let step = 1; step <= ROLLUP_BATCH + 1; step++) await meter.answered(await meter.begin(request(step)), usage, "ok");
    expect(calls.settle.map((b) => b.rows.length)).toEqual([1, ROLLUP_BATCH]);
  });

  it("sends the rows a crash kept from the account (read from the thread's ledger) before the new ones", async () => {
    // The account has rows 1 to 5; row 6 was recorded by an instance that crashed before sending it.
    const { account, calls, settleAll } = fakeAccount(false, 5);
    const { meter, rows, deferred } = meterOf(account, undefined, 6);
    rows.push({ ...usage, turnId: "cut" });
    await meter.answered(await meter.begin(request(1)), usage, "ok"); // row 7
    expect(calls.settle.map((b) => b.fromRow)).toEqual([7]);
    settleAll();
    // The account is behind (it has 5): the batch is sent again from row 6.
    await vi.waitFor(() => expect(calls.settle).toHaveLength(2));
    expect(calls.settle[1]).toMatchObject({ fromRow: 6 });
    expect(calls.settle[1]!.rows.map((r) => [r.row, r.turnId])).toEqual([[6, "cut"], [7, "turn1"]]);
    settleAll();
    await Promise.all(deferred);
    expect(account).toMatchObject({ last: 7 });
  });

  it("reserves every request while the agent has a budget, or while the user has budgets of their own", async () => {
    const agent = fakeAccount(false);
    const budgeted = meterOf(agent.account, [{ scope: "thread", period: "turn", tokens: 100_000 }]).meter;
    const user = fakeAccount(true);
    const owned = meterOf(user.account).meter;
    for (let step = 1; step <= 3; step++) {
      await budgeted.answered(await budgeted.begin(request(step)), usage, "ok");
      await owned.answered(await owned.begin(request(step)), usage, "ok");
    }
    expect(agent.calls.reserve).toHaveLength(3);
    expect(user.calls.reserve).toHaveLength(3);
  });

  it("hands over its requests in flight and its unsent usage when the user sets budgets, and reserves from then on", async () => {
    const { account, calls } = fakeAccount(false);
    const { meter } = meterOf(account);
    await meter.answered(await meter.begin(request(1)), usage, "ok");
    const unsent = await meter.begin(request(2));
    await meter.answered(unsent, usage, "ok");
    const inFlight = await meter.begin(request(3));
    expect(calls.reserve).toHaveLength(1);
    expect(calls.settle).toHaveLength(1);
    const handed = meter.handOver();
    expect(handed.map((r) => r.id)).toEqual([inFlight.id, unsent.id]);
    expect(handed[0]!.tokens).toBeGreaterThan(0);
    // The answered one is reserved at what it used, and its rollup (sent now) settles that reservation.
    expect(handed[1]!.tokens).toBe(12);
    expect(calls.settle.at(-1)!.rows.map((r) => [r.row, r.reservation])).toEqual([[2, unsent.id]]);
    // Now reserved in the account: a failure releases it.
    await meter.failed(inFlight);
    expect(calls.release).toBe(1);
    await meter.begin(request(4));
    expect(calls.reserve).toHaveLength(2);
    expect(meter.handOver()).toEqual([]);
  });
});
