/**
 * A request that offers a tool the provider runs itself (a web search) reserves the model's context
 * window for the results the provider adds to the input it bills, so a budget cannot be spent past
 * by one admitted request (hostile review: a 20,000-token lifetime budget admitted a request that
 * used 180,400 tokens).
 */
import { expect, it } from "vitest";
import { fakeEnv, fakeKey, scriptFake } from "../fake-provider.js";
import { stubOf } from "../helpers.js";
import { freshUser, send } from "./users.js";

it("a budget under the window refuses a request that may search, before it is sent", async () => {
  const user = await freshUser("provider-search");
  const LIMIT = 20_000;
  expect((await send(user.token, "PUT", "/account/budgets", { budgets: [{ scope: "thread", period: "lifetime", tokens: LIMIT }] })).status).toBe(200);
  const key = fakeKey("provider-search");
  await scriptFake(key, [
    {
      providerCalls: Array.from({ length: 10 }, (_, i) => ({ id: `ws_${i}`, query: `q${i}`, urls: [`https://example.com/${i}`] })),
      text: "Here is what I found.",
      usage: { input: 180_000, output: 400 },
    },
  ]);
  const created = await send(user.token, "POST", "/threads", { agent: "searcher", env: fakeEnv("anthropic:claude-sonnet-4-5", key) });
  const id = created.body.threadId as string;
  expect((await send(user.token, "POST", `/threads/${id}/messages`, { content: "search everything" })).status).toBe(202);
  await stubOf(id).waitIdle();
  expect((await send(user.token, "GET", `/threads/${id}`)).body.lastTurn).toMatchObject({ status: "stopped", errorCode: "budget_exceeded" });
  const total = (await send(user.token, "GET", `/threads/${id}/usage`)).body.total;
  expect(total.inputTokens + total.outputTokens).toBeLessThanOrEqual(LIMIT);
});
