/**
 * The deployment's budgets (`WEFT_BUDGETS`) cap what the deployment pays for: a request made with a
 * key the user supplied (or to an endpoint the user named, at the thread or user env level) is
 * paid by the user, so those budgets neither refuse it nor count it; the user's own budgets count
 * every request. The `deploy_budgeted` agent's key is the deployment's (set in its definition);
 * a thread that brings its own key and endpoint pays itself.
 */
import { describe, expect, it } from "vitest";
import { fakeEnv, fakeKey, fakeRequests, scriptFake } from "../fake-provider.js";
import { stubOf } from "../helpers.js";
import { framesOf, until } from "./race.js";
import { accountOfUser, freshUser, send } from "./users.js";

/** The key `deploy_budgeted` names at the agent level (test/fixtures/agents/deploy_budgeted.ts). */
const DEPLOYMENT_KEY = "deploy-budgeted-deployment-key";
const SPEC = "openai-chat:gpt-4.1-mini";

async function turn(token: string, env?: Record<string, unknown>): Promise<{ id: string; lastTurn: any }> {
  const created = await send(token, "POST", "/threads", { agent: "deploy_budgeted", ...(env ? { env } : {}) });
  expect(created.status).toBe(201);
  const id = created.body.threadId as string;
  expect((await send(token, "POST", `/threads/${id}/messages`, { content: "go" })).status).toBe(202);
  await stubOf(id).waitIdle();
  return { id, lastTurn: (await send(token, "GET", `/threads/${id}`)).body.lastTurn };
}

describe("who pays: deployment budgets and the user's own key", () => {
  it("a deployment budget naming an agent limits each user's requests the deployment pays for, and no other agent", async () => {
    const user = await freshUser("deploy-paid");
    await scriptFake(DEPLOYMENT_KEY, [{ text: "first", usage: { input: 1960, output: 20 } }]);
    expect((await turn(user.token)).lastTurn).toMatchObject({ status: "completed" });
    const before = (await fakeRequests(DEPLOYMENT_KEY)).length;
    const second = await turn(user.token);
    expect(second.lastTurn).toMatchObject({ status: "stopped", errorCode: "budget_exceeded" });
    expect(await fakeRequests(DEPLOYMENT_KEY)).toHaveLength(before);
    expect((await framesOf(second.id)).find((f) => f.type === "budget_exceeded")!.data).toMatchObject({ budget: { id: "deployment#0", scope: "agent", agent: "deploy_budgeted" }, limit: 2000, used: 1980 });
    // Another agent: not limited by it.
    const k = fakeKey("deploy-paid-other");
    await scriptFake(k, [{ text: "other agent", usage: { input: 1960, output: 20 } }]);
    const other = (await send(user.token, "POST", "/threads", { agent: "metered", env: fakeEnv(SPEC, k) })).body.threadId as string;
    await send(user.token, "POST", `/threads/${other}/messages`, { content: "go" });
    await stubOf(other).waitIdle();
    expect((await send(user.token, "GET", `/threads/${other}`)).body.lastTurn).toMatchObject({ status: "completed" });
  });

  it("requests on the user's own key are neither refused nor counted by the deployment's budget; the user's own budget counts them", async () => {
    const user = await freshUser("user-paid");
    await send(user.token, "PUT", "/account/budgets", { budgets: [{ scope: "user", period: "day", tokens: 100_000 }] });
    const own = fakeKey("user-paid-own");
    await scriptFake(own, [
      { text: "mine 1", usage: { input: 1960, output: 20 } },
      { text: "mine 2", usage: { input: 1960, output: 20 } },
    ]);
    await scriptFake(DEPLOYMENT_KEY, [{ text: "the deployment's", usage: { input: 1960, output: 20 } }]);
    // Paid by the user: the deployment's 2,000-token budget would have refused the second.
    const first = await turn(user.token, fakeEnv(SPEC, own));
    expect(first.lastTurn).toMatchObject({ status: "completed" });
    expect((await send(user.token, "GET", `/threads/${first.id}/usage`)).body.requests.map((r: { userPaid: boolean }) => r.userPaid)).toEqual([true]);
    expect((await turn(user.token, fakeEnv(SPEC, own))).lastTurn).toMatchObject({ status: "completed" });
    // Paid by the deployment: its budget has counted nothing of the 3,960 tokens above.
    await until(async () => (await accountOfUser(user.userId).openReservations()) === 0, "the user's requests settled");
    const paid = await turn(user.token);
    expect(paid.lastTurn).toMatchObject({ status: "completed" });
    expect((await send(user.token, "GET", `/threads/${paid.id}/usage`)).body.requests.map((r: { userPaid: boolean }) => r.userPaid)).toEqual([false]);
    // The next the deployment would pay for is refused, counting only its own 1,980.
    const refused = await turn(user.token);
    expect(refused.lastTurn).toMatchObject({ status: "stopped", errorCode: "budget_exceeded" });
    expect((await framesOf(refused.id)).find((f) => f.type === "budget_exceeded")!.data).toMatchObject({ budget: { id: "deployment#0" }, used: 1980 });
    // The user's own budget counts all three.
    await until(async () => (await send(user.token, "GET", "/account/usage")).body.total.requests === 3, "the three requests rolled up");
    expect((await send(user.token, "GET", "/account/usage")).body.total).toMatchObject({ inputTokens: 3 * 1960, outputTokens: 3 * 20 });
  });
});
