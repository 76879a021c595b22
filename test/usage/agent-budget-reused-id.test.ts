/**
 * An agent's budget counts its usage on a thread made again on a deleted thread's id (review 21b):
 * a rollup row was keyed by day, thread and model, and kept the agent of the thread that made it, so
 * the second thread's usage, under another agent, was counted as the first one's (the
 * deployment's budget on `deploy_budgeted` never saw it).
 */
import { describe, expect, it } from "vitest";
import { fakeEnv, fakeKey, fakeRequests, scriptFake } from "../fake-provider.js";
import { until } from "../usage/race.js";
import { accountOfUser, freshUser, send, turnOf } from "../usage/users.js";

const DEPLOYMENT_KEY = "deploy-budgeted-deployment-key";
const SPEC = "openai-chat:gpt-4.1-mini";


describe("agent budgets on a reused thread id", () => {
  it("a deployment agent budget still refuses once its agent has used it, on a thread made again on a deleted thread's id", async () => {
    const user = await freshUser("reused-id");
    const ct = `slack:${crypto.randomUUID()}`;
    // 1. A cheap thread of another agent on the token's id: one request of the same model.
    const own = fakeKey("reused-first");
    await scriptFake(own, [{ text: "cheap", usage: { input: 10, output: 5 } }]);
    const first = await send(user.token, "POST", "/threads", { agent: "metered", env: fakeEnv(SPEC, own), continuationToken: ct });
    expect(first.status).toBe(201);
    const id = first.body.threadId as string;
    expect(await turnOf(user.token, id)).toMatchObject({ status: "completed" });
    await until(async () => (await send(user.token, "GET", "/account/usage")).body.total.requests === 1, "first request rolled up");
    expect((await send(user.token, "DELETE", `/threads/${id}`)).status).toBe(200);
    // 2. The same id again, now the budgeted agent on the deployment's key.
    await scriptFake(DEPLOYMENT_KEY, [
      { text: "one", usage: { input: 1960, output: 20 } },
      { text: "two", usage: { input: 1960, output: 20 } },
      { text: "three", usage: { input: 1960, output: 20 } },
    ]);
    const again = await send(user.token, "POST", "/threads", { agent: "deploy_budgeted", continuationToken: ct });
    expect(again.status).toBe(201);
    expect(again.body.threadId).toBe(id);
    expect(await turnOf(user.token, id)).toMatchObject({ status: "completed" });
    await until(async () => (await accountOfUser(user.userId).openReservations()) === 0 && (await send(user.token, "GET", "/account/usage")).body.total.requests === 2, "second request settled");
    const before = (await fakeRequests(DEPLOYMENT_KEY)).length;
    // 1,980 of the agent's 2,000 tokens are spent: the next request must be refused.
    const second = await turnOf(user.token, id);
    const byAgent = (await send(user.token, "GET", "/account/usage?groupBy=agent")).body.groups;
    expect(byAgent.map((g: { key: string; requests: number }) => [g.key, g.requests])).toEqual([["deploy_budgeted", 1], ["metered", 1]]);
    expect(second).toMatchObject({ status: "stopped", errorCode: "budget_exceeded" });
    expect(await fakeRequests(DEPLOYMENT_KEY)).toHaveLength(before);
  });
});
