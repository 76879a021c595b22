/**
 * A reasoning effort on an Anthropic model of budget thinking adds a thinking budget to the
 * `max_tokens` sent (Anthropic counts thinking there): the budget reservation covers what is sent,
 * the thinking included, since both come from `outputPlan` (hostile review: 61,121 sent, 321 reserved).
 */
import { describe, expect, it } from "vitest";
import { fakeEnv, fakeKey, fakeRequests, scriptFake } from "../fake-provider.js";
import { stubOf } from "../helpers.js";
import { reservedOutput } from "../../src/usage/meter.js";
import { framesOf } from "./race.js";
import { freshUser, send } from "./users.js";

const SPEC = "anthropic:claude-sonnet-4-5";
// The `tuned` agent's own bound, and the effort a message gives its turn.
const SETTINGS = { maxOutputTokens: 321, reasoningEffort: "max" } as const;

async function thinkingTurn(label: string, dailyTokens: number): Promise<{ id: string; key: string }> {
  const user = await freshUser(`reasoning-${label}`);
  expect((await send(user.token, "PUT", "/account/budgets", { budgets: [{ scope: "user", period: "day", tokens: dailyTokens }] })).status).toBe(200);
  const key = fakeKey(`reasoning-${label}`);
  await scriptFake(key, [{ text: "ok", usage: { input: 50, output: 5 } }]);
  const id = (await send(user.token, "POST", "/threads", { agent: "tuned", env: fakeEnv(SPEC, key) })).body.threadId as string;
  expect((await send(user.token, "POST", `/threads/${id}/messages`, { content: "think hard", modelSettings: { reasoningEffort: "max" } })).status).toBe(202);
  await stubOf(id).waitIdle();
  return { id, key };
}

describe("reasoning effort and the reserved output", () => {
  const reserved = reservedOutput({ model: SPEC, wire: "anthropic", settings: SETTINGS });

  it("the max_tokens sent with a thinking budget is the output the reservation covers", async () => {
    const { key } = await thinkingTurn("sent", 200_000);
    const sent = (await fakeRequests(key))[0]!.body;
    // 321 of answer and 95% of the model's 64,000 of thinking.
    expect({ max_tokens: sent.max_tokens, thinking: sent.thinking }).toEqual({ max_tokens: reserved, thinking: { type: "enabled", budget_tokens: 60_800 } });
    expect(reserved).toBe(321 + 60_800);
  });

  it("a budget that holds the answer's bound but not the thinking refuses the request before the provider is called", async () => {
    const { id, key } = await thinkingTurn("refused", 10_000);
    expect(await fakeRequests(key)).toHaveLength(0);
    const refusal = (await framesOf(id)).find((f) => f.type === "budget_exceeded")!.data as { requested: number; limit: number };
    expect(refusal.limit).toBe(10_000);
    expect(refusal.requested).toBeGreaterThan(reserved);
  });
});
