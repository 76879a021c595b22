/**
 * Budgets that hold: a request whose reservation would cross a budget is refused before any
 * provider call, the turn ends `stopped` with `errorCode: "budget_exceeded"` and a
 * `budget_exceeded` event naming the budget, its limit and what is used; budgets come from the
 * agent definition and from the user's account; concurrent turns across threads never pass the
 * limit, and a crashed request's reservation is not leaked.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { fakeEnv, fakeKey, fakeRequests, releaseFake, scriptFake } from "../fake-provider.js";
import { request, stubOf } from "../helpers.js";
import { framesOf, raceLine, runRace, until } from "./race.js";
import { accountOfUser, freshUser, send, turnOf } from "./users.js";

const SPEC = "openai-chat:gpt-4.1-mini";

async function thread(token: string, agent: string, key: string): Promise<string> {
  const created = await send(token, "POST", "/threads", { agent, env: fakeEnv(SPEC, key) });
  expect(created.status).toBe(201);
  return created.body.threadId as string;
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
    const first = await turnOf(user.token, id);
    expect(first).toMatchObject({ status: "stopped", errorCode: "budget_exceeded", steps: 1 });
    // Only the first step reached the provider.
    expect(await fakeRequests(key)).toHaveLength(1);
    const frames = await framesOf(id);
    const refusal = frames.find((f) => f.type === "budget_exceeded")!.data as any;
    expect(refusal).toMatchObject({ budget: { id: "agent:budgeted#0", scope: "thread", period: "turn", tokens: 3000 }, measure: "tokens", limit: 3000, used: 2940 });
    expect(refusal.used + refusal.requested).toBeGreaterThan(3000);
    expect(frames.find((f) => f.type === "turn_finished")!.data).toMatchObject({ status: "stopped", errorCode: "budget_exceeded" });
    // The agent's budgetMessage answers in the model's place.
    const messages = (await send(user.token, "GET", `/threads/${id}/messages`)).body.messages;
    expect(messages.at(-1)).toMatchObject({ role: "assistant", content: "This turn reached its token budget; ask again in a new message." });
    const second = await turnOf(user.token, id);
    expect(second).toMatchObject({ status: "completed", steps: 1 });
    expect(await fakeRequests(key)).toHaveLength(2);
    await until(async () => (await accountOfUser(user.userId).openReservations()) === 0, "every reservation settled");
  });

  it("a thread that learned its user has no budgets is told before the user's first budget holds: its request in flight counts, the next is refused", async () => {
    const user = await freshUser();
    const account = accountOfUser(user.userId);
    const key = fakeKey("handover");
    // The second request's stream is held after its first parts until the budget is set: it is under way then, however slow the machine.
    await scriptFake(key, [
      { text: "learned", usage: { input: 100, output: 5 } },
      { text: "still streaming when set", usage: { input: 900, output: 60 }, chunk: 4, hold: { afterEvents: 2 } },
      { text: "never", usage: { input: 10, output: 1 } },
    ]);
    const id = await thread(user.token, "metered", key);
    expect(await turnOf(user.token, id)).toMatchObject({ status: "completed" });
    await until(async () => (await send(user.token, "GET", "/account/usage")).body.total.requests === 1, "the first request rolled up");
    // No budget applies: the second request reserves nothing...
    expect((await send(user.token, "POST", `/threads/${id}/messages`, { content: "again" })).status).toBe(202);
    await until(async () => (await fakeRequests(key)).length === 2, "the second request reached the provider");
    expect(await account.openReservations()).toBe(0);
    // ...until the user sets a budget: before the write answers, the thread hands it over as a reservation.
    const budgets = [{ scope: "user", period: "day", tokens: 1200 }];
    expect((await send(user.token, "PUT", "/account/budgets", { budgets })).body).toEqual({ budgets });
    expect(await account.openReservations()).toBe(1);
    await releaseFake(key);
    await stubOf(id).waitIdle();
    await until(async () => (await account.openReservations()) === 0, "the handed-over request settled");
    // 105 + 960 used of 1200: the next request reserves (it no longer skips the account) and is refused.
    const third = await turnOf(user.token, id);
    expect(third).toMatchObject({ status: "stopped", errorCode: "budget_exceeded", steps: 0 });
    expect(await fakeRequests(key)).toHaveLength(2);
    expect((await framesOf(id)).find((f) => f.type === "budget_exceeded")!.data).toMatchObject({ budget: { id: "user#0" }, limit: 1200, used: 1065 });
  });

  it("failed requests are charged: a provider that fails after streaming cannot spend past a budget", async () => {
    const user = await freshUser();
    const account = accountOfUser(user.userId);
    const budgets = [{ scope: "user", period: "day", tokens: 10_000 }];
    expect((await send(user.token, "PUT", "/account/budgets", { budgets })).status).toBe(200);
    const key = fakeKey("failing");
    // Every attempt streams 4,000 characters and then the connection resets: each turn fails after its retries.
    await scriptFake(key, Array.from({ length: 30 }, () => ({ text: "y".repeat(8000), chunk: 800, resetAfterEvents: 6 })));
    // An agent with no output bound of its own: each request reserves 4,096 output tokens.
    const id = await thread(user.token, "streaming", key);
    let refused: any;
    // Charged, about 1,000 tokens an attempt exhaust the budget within two turns; released, never.
    for (let i = 0; i < 6 && !refused; i++) {
      const last = await turnOf(user.token, id);
      await until(async () => (await account.openReservations()) === 0, "the turn's attempts settled");
      if (last.errorCode === "budget_exceeded") refused = last;
      else expect(last.status).toBe("failed");
    }
    // The attempts were charged, so the budget ran out; before, every failed attempt was released as unused.
    expect(refused).toMatchObject({ status: "stopped", errorCode: "budget_exceeded" });
    const used = (await send(user.token, "GET", "/account/usage")).body.total;
    expect(used.requests).toBe((await fakeRequests(key)).length);
    expect(used.inputTokens + used.outputTokens).toBeLessThanOrEqual(10_000);
    expect(used.outputTokens).toBeGreaterThanOrEqual(used.requests * 800);
  }, 60_000);

  it("an answered request whose usage the thread has not sent yet counts against a budget the user sets meanwhile", async () => {
    const user = await freshUser();
    const key = fakeKey("unsent");
    await scriptFake(key, [
      { text: "learned", usage: { input: 100, output: 5 } },
      { text: "answered, not yet rolled up", usage: { input: 900, output: 60 } },
      { text: "never", usage: { input: 10, output: 1 } },
    ]);
    const id = await thread(user.token, "metered", key);
    expect(await turnOf(user.token, id)).toMatchObject({ status: "completed" });
    // No budget applies: the second request's usage waits in the thread (up to a second) to go with others'.
    expect(await turnOf(user.token, id)).toMatchObject({ status: "completed" });
    const budgets = [{ scope: "user", period: "day", tokens: 1200 }];
    expect((await send(user.token, "PUT", "/account/budgets", { budgets })).body).toEqual({ budgets });
    // Handed over before the budget held (as a reservation of what it used, or already rolled up): 105 + 960 of 1200 are used.
    const third = await turnOf(user.token, id);
    expect(third).toMatchObject({ status: "stopped", errorCode: "budget_exceeded", steps: 0 });
    expect((await framesOf(id)).find((f) => f.type === "budget_exceeded")!.data).toMatchObject({ budget: { id: "user#0" }, limit: 1200, used: 1065 });
    expect(await fakeRequests(key)).toHaveLength(2);
    await until(async () => (await send(user.token, "GET", "/account/usage")).body.total.requests === 2, "both requests rolled up");
    await until(async () => (await accountOfUser(user.userId).openReservations()) === 0, "the handed-over usage settled");
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
    expect(await turnOf(user.token, await thread(user.token, "metered", k1))).toMatchObject({ status: "completed" });
    // The settle is not awaited by the turn: until it lands the account counts the reservation instead.
    await until(async () => (await accountOfUser(user.userId).openReservations()) === 0, "the first turn settled");
    const other = await thread(user.token, "metered", k2);
    expect(await turnOf(user.token, other)).toMatchObject({ status: "stopped", errorCode: "budget_exceeded", steps: 0 });
    expect(await fakeRequests(k2)).toHaveLength(0);
    const refusal = (await framesOf(other)).find((f) => f.type === "budget_exceeded")!.data as any;
    expect(refusal).toMatchObject({ budget: { id: "user#0", scope: "user", period: "day" }, limit: 5000, used: 4980 });
    // Another user is not limited by it.
    const stranger = await freshUser();
    const k3 = fakeKey("stranger");
    await scriptFake(k3, [{ text: "fine", usage: { input: 4000, output: 20 } }]);
    expect(await turnOf(stranger.token, await thread(stranger.token, "metered", k3))).toMatchObject({ status: "completed" });
  });

  it("a budget whose only limit is under a JSON __proto__ key is refused, not stored without a limit (hostile review)", async () => {
    const u = await freshUser("budget-proto");
    const res = await request("/account/budgets", { method: "PUT", headers: { authorization: `Bearer ${u.token}`, "content-type": "application/json" }, body: '{"budgets":[{"scope":"user","period":"day","__proto__":{"tokens":5}}]}' }, null);
    const stored = (await send(u.token, "GET", "/account/budgets")).body.budgets;
    expect({ status: res.status, stored }).toEqual({ status: 400, stored: [] });
  });

  it("a cost budget refuses in dollars at the shipped prices", async () => {
    const user = await freshUser();
    await send(user.token, "PUT", "/account/budgets", { budgets: [{ scope: "user", period: "month", costUsd: 0.005 }] });
    const [k1, k2] = [fakeKey("cost1"), fakeKey("cost2")];
    // gpt-4.1-mini: $0.40 per million input tokens, so 12,400 cost $0.00496; the next request's
    // maximum (its 64 output tokens alone cost $0.0001) would pass $0.005.
    await scriptFake(k1, [{ text: "first", usage: { input: 12_400, output: 0 } }]);
    await scriptFake(k2, [{ text: "never" }]);
    expect(await turnOf(user.token, await thread(user.token, "metered", k1))).toMatchObject({ status: "completed" });
    const other = await thread(user.token, "metered", k2);
    expect(await turnOf(user.token, other)).toMatchObject({ status: "stopped", errorCode: "budget_exceeded" });
    expect(await fakeRequests(k2)).toHaveLength(0);
    const refusal = (await framesOf(other)).find((f) => f.type === "budget_exceeded")!.data as any;
    // The user's own key: its reported output of 0 for "first" counts a token (at least half weft's estimate of what came).
    expect(refusal).toMatchObject({ measure: "costUsd", limit: 0.005 });
    expect(refusal.used).toBeCloseTo(0.00496, 5);
  });

  it("a model with no price is refused under a cost budget, never counted as free (a user may choose the model)", async () => {
    const user = await freshUser();
    await send(user.token, "PUT", "/account/budgets", { budgets: [{ scope: "user", period: "month", costUsd: 5 }] });
    const key = fakeKey("unpriced");
    await scriptFake(key, [{ text: "free?" }]);
    // A model the shipped price table does not name (nor its family), chosen by the user at the thread level.
    const created = await send(user.token, "POST", "/threads", { agent: "metered", env: fakeEnv("openai:gpt-5-nano-2025-08-07", key) });
    expect(created.status).toBe(201);
    const id = created.body.threadId as string;
    expect(await turnOf(user.token, id)).toMatchObject({ status: "stopped", errorCode: "budget_exceeded" });
    expect(await fakeRequests(key)).toHaveLength(0);
    expect((await framesOf(id)).find((f) => f.type === "budget_exceeded")!.data).toMatchObject({ measure: "costUsd", unpriced: true });
  });

  it("a request with no max tokens is bounded (and reserved) at 4096 output tokens only where a budget applies", async () => {
    const outputBound = (body: any) => body.max_completion_tokens ?? body.max_tokens;
    const free = await freshUser();
    const k1 = fakeKey("free");
    await scriptFake(k1, [{ text: "free" }]);
    await turnOf(free.token, await thread(free.token, "streaming", k1));
    expect(outputBound((await fakeRequests(k1))[0]!.body)).toBeUndefined();
    const limited = await freshUser();
    await send(limited.token, "PUT", "/account/budgets", { budgets: [{ scope: "thread", period: "lifetime", tokens: 1_000_000 }] });
    const k2 = fakeKey("limited");
    await scriptFake(k2, [{ text: "limited" }]);
    await turnOf(limited.token, await thread(limited.token, "streaming", k2));
    expect(outputBound((await fakeRequests(k2))[0]!.body)).toBe(4096);
  });

  it("a reservation never settled (its request crashed, its thread never came back) is charged by the account's alarm at its lease's end, not dropped", async () => {
    const user = await freshUser();
    const account = accountOfUser(user.userId);
    // A lease long enough to read the row before it ends, even on a loaded machine.
    const expiresAt = Date.now() + 2000;
    const reserved = await account.reserveBudget({ id: "rsv_lost", threadId: "t".repeat(64), agentId: "metered", turnId: "turn_x", instance: "gone", model: "openai-chat:gpt-4.1-mini", tokens: 10, inputTokens: 6, costMicroUsd: 3, expiresAt, budgets: [] });
    expect(reserved).toEqual({ ok: true, value: { reserved: true, budgets: 0, userBudgets: false } });
    const ns = (env as unknown as { ACCOUNT: DurableObjectNamespace }).ACCOUNT;
    const stub = ns.get(ns.idFromName(user.userId));
    const rows = () => runInDurableObject(stub, (_: unknown, state: DurableObjectState) => state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM budget_reservations").one().n);
    expect(await runInDurableObject(stub, (_: unknown, state: DurableObjectState) => state.storage.getAlarm())).toBe(expiresAt);
    expect(await rows()).toBe(1);
    // Only the alarm deletes it here: nothing else runs in this account meanwhile.
    for (let i = 0; i < 1000 && (await rows()) > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(await rows()).toBe(0);
    expect(await runDurableObjectAlarm(stub)).toBe(false);
    // The request may have reached the provider: its reservation is charged (input and output bounds, estimated), not handed back.
    const total = (await send(user.token, "GET", "/account/usage")).body.total;
    expect(total).toMatchObject({ requests: 1, inputTokens: 6, outputTokens: 4, estimatedRequests: 1, costUsd: 0.000003 });
  });

  it("a deleted thread leaves the account's watcher list: the first budget write does not call it", async () => {
    const user = await freshUser();
    const key = fakeKey("watcher-deleted");
    await scriptFake(key, [{ text: "one" }]);
    const id = await thread(user.token, "metered", key);
    expect(await turnOf(user.token, id)).toMatchObject({ status: "completed" });
    const ns = (env as unknown as { ACCOUNT: DurableObjectNamespace }).ACCOUNT;
    const stub = ns.get(ns.idFromName(user.userId));
    const watchers = () => runInDurableObject(stub, (_: unknown, state: DurableObjectState) => state.storage.sql.exec<{ thread_id: string }>("SELECT thread_id FROM budget_watchers").toArray().map((w) => w.thread_id));
    expect(await watchers()).toEqual([id]);
    expect((await send(user.token, "DELETE", `/threads/${id}`)).status).toBe(200);
    expect(await watchers()).toEqual([]);
    expect((await send(user.token, "PUT", "/account/budgets", { budgets: [{ scope: "user", period: "day", tokens: 10_000 }] })).status).toBe(200);
  });

  it("a request whose lease ended before its answer came is counted once: its row replaces the lease's charge", async () => {
    const user = await freshUser();
    const account = accountOfUser(user.userId);
    const threadId = "s".repeat(64);
    const model = "openai-chat:gpt-4.1-mini";
    await account.reserveBudget({ id: "rsv_slow", threadId, agentId: "metered", turnId: "turn_s", instance: "alive", model, tokens: 100, inputTokens: 60, costMicroUsd: 50, expiresAt: Date.now() - 1, budgets: [] });
    expect(await account.openReservations()).toBe(0);
    expect((await send(user.token, "GET", "/account/usage")).body.total).toMatchObject({ requests: 1, inputTokens: 60, outputTokens: 40 });
    const row = { row: 1, reservation: "rsv_slow", turnId: "turn_s", model, inputTokens: 30, outputTokens: 5, cachedInputTokens: 0, reasoningTokens: 0, cacheWriteTokens: 0, estimated: false, durationMs: 7, costMicroUsd: 9, at: Date.now() };
    expect(await account.settleUsage({ threadId, agentId: "metered", fromRow: 1, rows: [row] })).toEqual({ ok: true, value: { behind: null } });
    const total = (await send(user.token, "GET", "/account/usage")).body.total;
    expect(total).toMatchObject({ requests: 1, inputTokens: 30, outputTokens: 5, estimatedRequests: 0, durationMs: 7, costUsd: 0.000009 });
  });

  it("concurrent turns across threads never pass the limit; a crashed request's reservation is charged", async () => {
    const result = await runRace({ turns: 12, allowed: 4, crashRate: 1, seed: 28 });
    expect(result.used).toBeLessThanOrEqual(result.limit);
    // Exactly the 4 the budget allows, answered or cut by a crash (charged its reservation), but for
    // any failed attempt's charge (each less than one answer's).
    expect(result.answered + result.crashed).toBeLessThanOrEqual(4);
    expect(result.answered + result.crashed).toBeGreaterThanOrEqual(4 - result.failed);
    expect(result.reached).toBe(result.answered + result.crashed + result.failed);
    expect(result.leaked).toBe(0);
    // Admitted requests were cut by a crash (those whose stream outran the crash were not); their
    // restarted thread asks again only where the budget has room.
    expect(result.crashed).toBeGreaterThanOrEqual(1);
    expect(result.refusedThatCalled).toBe(0);
    expect(result.refused).toBeGreaterThanOrEqual(12 - 4);
    expect(raceLine(result)).toBe(`budget-race: 12 turns, limit ${result.limit}, used ${result.used} <= ${result.limit}, 0 leaked reservations, ${result.refused} refused before any provider call`);
  }, 180_000);
});
