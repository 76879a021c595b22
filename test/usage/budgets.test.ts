/**
 * Budgets that hold: a request whose reservation would cross a budget is refused before any
 * provider call, the turn ends `stopped` with `errorCode: "budget_exceeded"` and a
 * `budget_exceeded` event naming the budget, its limit and what is used; budgets come from the
 * agent definition and from the user's account; concurrent turns across threads never pass the
 * limit, and a crashed request's reservation is not leaked.
 */
import { describe, expect, it } from "vitest";
import { fakeEnv, fakeKey, fakeRequests, scriptFake } from "../fake-provider.js";
import { stubOf } from "../helpers.js";
import { framesOf, raceLine, runRace } from "./race.js";
import { accountOfUser, freshUser, send } from "./users.js";

const SPEC = "openai-chat:gpt-4.1-mini";

async function thread(token: string, agent: string, key: string): Promise<string> {
  const created = await send(token, "POST", "/threads", { agent, env: fakeEnv(SPEC, key) });
  expect(created.status).toBe(201);
  return created.body.threadId as string;
}

async function turn(token: string, id: string): Promise<any> {
  expect((await send(token, "POST", `/threads/${id}/messages`, { content: "go" })).status).toBe(202);
  await stubOf(id).waitIdle();
  return (await send(token, "GET", `/threads/${id}`)).body.lastTurn;
}

describe("budgets", () => {
  it("an agent's per-turn budget stops the turn before the request that would cross it; the next turn has its own", async () => {
    const user = await freshUser();
    const key = fakeKey("budget");
    await scriptFake(key, [
      { toolCalls: [{ id: "b1", name: "person", arguments: '{"name":"A","age":1}' }], usage: { input: 2900, output: 40 } },
      { text: "second turn", usage: { input: 300, output: 10 } },
    ]);
    const id = await thread(user.token, "budgeted", key);
    const first = await turn(user.token, id);
    expect(first).toMatchObject({ status: "stopped", errorCode: "budget_exceeded", steps: 1 });
    // Only the first step reached the provider.
    expect(await fakeRequests(key)).toHaveLength(1);
    const frames = await framesOf(id);
    const refusal = frames.find((f) => f.type === "budget_exceeded")!.data as any;
    expect(refusal).toMatchObject({ budget: { id: "agent:budgeted#0", scope: "thread", period: "turn", tokens: 3000 }, measure: "tokens", limit: 3000, used: 2940 });
    expect(refusal.used + refusal.requested).toBeGreaterThan(3000);
    expect(frames.find((f) => f.type === "turn_finished")!.data).toMatchObject({ status: "stopped", errorCode: "budget_exceeded" });
    const second = await turn(user.token, id);
    expect(second).toMatchObject({ status: "completed", steps: 1 });
    expect(await fakeRequests(key)).toHaveLength(2);
    expect(await accountOfUser(user.userId).openReservations()).toBe(0);
  });

  it("a user's own budget (PUT /account/budgets) holds across their threads; malformed budgets are refused with their path", async () => {
    const user = await freshUser();
    const bad = await send(user.token, "PUT", "/account/budgets", { budgets: [{ scope: "user", period: "week", tokens: 5 }] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.path).toEqual(["budgets", 0, "period"]);
    const none = await send(user.token, "PUT", "/account/budgets", { budgets: [{ scope: "user", period: "day" }] });
    expect(none.status).toBe(400);
    const budgets = [{ scope: "user", period: "day", tokens: 5000 }];
    expect((await send(user.token, "PUT", "/account/budgets", { budgets })).body).toEqual({ budgets });
    expect((await send(user.token, "GET", "/account/budgets")).body).toEqual({ budgets });
    const [k1, k2] = [fakeKey("user1"), fakeKey("user2")];
    await scriptFake(k1, [{ text: "first", usage: { input: 4960, output: 20 } }]);
    await scriptFake(k2, [{ text: "never", usage: { input: 10, output: 1 } }]);
    expect(await turn(user.token, await thread(user.token, "metered", k1))).toMatchObject({ status: "completed" });
    const other = await thread(user.token, "metered", k2);
    expect(await turn(user.token, other)).toMatchObject({ status: "stopped", errorCode: "budget_exceeded", steps: 0 });
    expect(await fakeRequests(k2)).toHaveLength(0);
    const refusal = (await framesOf(other)).find((f) => f.type === "budget_exceeded")!.data as any;
    expect(refusal).toMatchObject({ budget: { id: "user#0", scope: "user", period: "day" }, limit: 5000, used: 4980 });
    // Another user is not limited by it.
    const stranger = await freshUser();
    const k3 = fakeKey("stranger");
    await scriptFake(k3, [{ text: "fine", usage: { input: 4000, output: 20 } }]);
    expect(await turn(stranger.token, await thread(stranger.token, "metered", k3))).toMatchObject({ status: "completed" });
  });

  it("concurrent turns across threads never pass the limit; a crashed request's reservation is released", async () => {
    const result = await runRace({ turns: 12, allowed: 4, crashRate: 1, seed: 28 });
    expect(result.used).toBeLessThanOrEqual(result.limit);
    expect(result.answered).toBe(4);
    expect(result.leaked).toBe(0);
    // Every admitted request was cut by a crash once, and asked again by the restarted thread.
    expect(result.crashed).toBe(4);
    expect(result.refusedThatCalled).toBe(0);
    expect(result.refused).toBeGreaterThanOrEqual(12 - 4);
    expect(raceLine(result)).toBe(`budget-race: 12 turns, limit ${result.limit}, used ${result.used} <= ${result.limit}, 0 leaked reservations, ${result.refused} refused before any provider call`);
  }, 180_000);
});
