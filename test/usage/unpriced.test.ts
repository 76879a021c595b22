/**
 * A model the price table does not list by its own id: a dated snapshot of a listed family is
 * priced as its family (hostile review: `gpt-4.1-mini-2025-04-14` was recorded at cost 0), and a
 * model with no price at all is recorded with an unknown cost (null, counted in `unpricedRequests`),
 * never as free; its tokens count as any model's.
 */
import { describe, expect, it } from "vitest";
import { fakeEnv, fakeKey, scriptFake } from "../fake-provider.js";
import { stubOf } from "../helpers.js";
import { SHIPPED_PRICES, priceOf } from "../../src/usage/prices.js";
import { freshUser, send } from "./users.js";

async function oneTurn(label: string, spec: string): Promise<{ token: string; id: string }> {
  const user = await freshUser(`unpriced-${label}`);
  const key = fakeKey(`unpriced-${label}`);
  await scriptFake(key, [{ text: "ok", usage: { input: 100_000, output: 50_000 } }]);
  const id = (await send(user.token, "POST", "/threads", { agent: "metered", env: fakeEnv(spec, key) })).body.threadId as string;
  expect((await send(user.token, "POST", `/threads/${id}/messages`, { content: "go" })).status).toBe(202);
  await stubOf(id).waitIdle();
  return { token: user.token, id };
}

describe("models the price table does not list by their id", () => {
  it("a dated snapshot costs its family's price: OpenAI's -YYYY-MM-DD and Anthropic's -YYYYMMDD", () => {
    expect(priceOf(SHIPPED_PRICES, "openai:gpt-4o-2024-08-06")).toEqual(SHIPPED_PRICES.models["gpt-4o"]);
    expect(priceOf(SHIPPED_PRICES, "anthropic:claude-sonnet-4-5-20250929")).toEqual(SHIPPED_PRICES.models["claude-sonnet-4-5"]);
    expect(priceOf(SHIPPED_PRICES, "openai-chat:gpt-4.1-mini-2025-04-14")).toEqual(SHIPPED_PRICES.models["gpt-4.1-mini"]);
    // A snapshot priced otherwise than its family is listed by its own id.
    expect(priceOf(SHIPPED_PRICES, "openai:gpt-4o-2024-05-13")).toEqual({ input: 5, output: 15 });
    // Only a date makes a snapshot; an unknown family, or a name that only looks alike, has no price.
    expect(priceOf(SHIPPED_PRICES, "openai:gpt-4o-mini-tts")).toBeUndefined();
    expect(priceOf(SHIPPED_PRICES, "openai:gpt-9-2030-01-01")).toBeUndefined();
    expect(priceOf(SHIPPED_PRICES, "openai:constructor")).toBeUndefined();
  });

  it("the scripted model's free price is its own: a provider's model a user names `scripted` is unpriced (review: it was free)", () => {
    expect(priceOf(SHIPPED_PRICES, "scripted")).toEqual({ input: 0, output: 0 });
    for (const spec of ["openai-compatible:scripted", "workers-ai:scripted", "openai:scripted", "openai-compatible:scripted-2025-01-01", "openai-compatible:scripted-20250101"]) {
      expect(priceOf(SHIPPED_PRICES, spec)).toBeUndefined();
    }
  });

  it("a dated snapshot's turn is recorded at its family's price", async () => {
    const { token, id } = await oneTurn("snapshot", "openai-chat:gpt-4.1-mini-2025-04-14");
    const usage = (await send(token, "GET", `/threads/${id}/usage`)).body;
    expect(usage.total).toMatchObject({ inputTokens: 100_000, outputTokens: 50_000, costUsd: (100_000 * 0.4 + 50_000 * 1.6) / 1e6, unpricedRequests: 0 });
  });

  it("a model with no price is recorded with an unknown cost, in the thread and in the account, its tokens counted", async () => {
    const { token, id } = await oneTurn("none", "openai-chat:gpt-5-nano");
    const usage = (await send(token, "GET", `/threads/${id}/usage`)).body;
    expect(usage.requests.map((r: { costMicroUsd: number | null }) => r.costMicroUsd)).toEqual([null]);
    expect(usage.total).toMatchObject({ inputTokens: 100_000, outputTokens: 50_000, costUsd: 0, unpricedRequests: 1 });
    const account = (await send(token, "GET", "/account/usage?groupBy=model")).body;
    expect(account.total).toMatchObject({ inputTokens: 100_000, outputTokens: 50_000, unpricedRequests: 1 });
    expect(account.groups).toEqual([expect.objectContaining({ key: "openai-chat:gpt-5-nano", unpricedRequests: 1 })]);
  });
});
