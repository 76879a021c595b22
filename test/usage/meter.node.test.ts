/**
 * The meter's cost on a turn (src/usage/meter.ts): a thread whose requests no budget can apply to
 * asks its account once (to learn that the user has no budgets of their own), not twice per
 * request, and never waits for the rollup; a budget of the agent still reserves every request;
 * and when the user sets budgets the thread hands over its requests in flight and reserves again.
 * The account is a fake that counts what it is asked.
 */
import { describe, expect, it } from "vitest";
import type { AccountApi } from "../../src/account/api.js";
import type { Budget } from "../../src/usage/budgets.js";
import { ThreadMeter } from "../../src/usage/meter.js";
import type { ReserveRequest } from "../../src/usage/reservations.js";
import type { ThreadUsageLedger } from "../../src/usage/thread-ledger.js";

/** An account that answers reservations at once and holds every settle until `settleAll`. */
function fakeAccount(userBudgets: boolean) {
  const calls = { reserve: [] as ReserveRequest[], settle: 0, release: 0 };
  const held: Array<() => void> = [];
  const account = {
    async reserveBudget(r: ReserveRequest) {
      calls.reserve.push(r);
      return { ok: true, value: { reserved: true, budgets: r.budgets.length, userBudgets } };
    },
    settleBudget() {
      calls.settle++;
      return new Promise((resolve) => held.push(() => resolve({ ok: true, value: null })));
    },
    async releaseBudget() {
      calls.release++;
      return { ok: true, value: null };
    },
  } as unknown as AccountApi;
  return { account, calls, settleAll: () => held.splice(0).forEach((f) => f()) };
}

function meterOf(account: AccountApi, agentBudgets?: Budget[]) {
  const rows: unknown[] = [];
  const deferred: Promise<unknown>[] = [];
  const meter = new ThreadMeter({
    threadId: "t1",
    agentId: "metered",
    ...(agentBudgets ? { agentBudgets } : {}),
    workerEnv: {},
    account,
    ledger: { record: (row: unknown) => rows.push(row) } as unknown as ThreadUsageLedger,
    refused: () => undefined,
    defer: (work) => deferred.push(work),
  });
  return { meter, rows, deferred };
}

const request = (step: number) => ({ turnId: "turn1", step, model: "openai-chat:gpt-4.1-mini", messages: [], tools: [] });
const usage = { inputTokens: 10, outputTokens: 2 };

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
    expect(calls.settle).toBe(4);
    expect(deferred).toHaveLength(4);
    settleAll();
    await Promise.all(deferred);
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

  it("hands over its requests in flight when the user sets budgets, and reserves from then on", async () => {
    const { account, calls } = fakeAccount(false);
    const { meter } = meterOf(account);
    await meter.answered(await meter.begin(request(1)), usage, "ok");
    const inFlight = await meter.begin(request(2));
    expect(calls.reserve).toHaveLength(1);
    const handed = meter.handOver();
    expect(handed.map((r) => r.id)).toEqual([inFlight.id]);
    expect(handed[0]!.tokens).toBeGreaterThan(0);
    // Now reserved in the account: a failure releases it.
    await meter.failed(inFlight);
    expect(calls.release).toBe(1);
    await meter.begin(request(3));
    expect(calls.reserve).toHaveLength(2);
    expect(meter.handOver()).toEqual([]);
  });
});
