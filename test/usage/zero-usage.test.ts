/**
 * An endpoint a user points a thread at may report usage of 0 for requests that sent thousands of
 * characters (hostile review). An input of 0 is no report: the row is estimated from what was sent,
 * so every budget that counts user-paid requests (the user's own, and an agent author's) fills.
 */
import { describe, expect, it } from "vitest";
import { fakeEnv, fakeKey, scriptFake } from "../fake-provider.js";
import { stubOf } from "../helpers.js";
import { accountOfUser, freshUser, send } from "./users.js";
import { until } from "./race.js";

const SPEC = "openai-chat:gpt-4.1-mini";

describe("a user's endpoint reporting zero usage", () => {
  it("still counts what was sent against the user's own budget", async () => {
    const user = await freshUser("zero-usage");
    await send(user.token, "PUT", "/account/budgets", { budgets: [{ scope: "user", period: "day", tokens: 50_000 }] });
    const key = fakeKey("zero-usage");
    await scriptFake(key, Array.from({ length: 5 }, () => ({ text: "ok", usage: { input: 0, output: 0 } })));
    const big = "word ".repeat(800); // 4,000 characters: about 1,000 tokens by weft's own estimate
    for (let i = 0; i < 5; i++) {
      const id = (await send(user.token, "POST", "/threads", { agent: "metered", env: fakeEnv(SPEC, key) })).body.threadId as string;
      expect((await send(user.token, "POST", `/threads/${id}/messages`, { content: `${i} ${big}` })).status).toBe(202);
      await stubOf(id).waitIdle();
      expect((await send(user.token, "GET", `/threads/${id}`)).body.lastTurn).toMatchObject({ status: "completed" });
    }
    await until(async () => (await accountOfUser(user.userId).openReservations()) === 0, "settled");
    await until(async () => (await send(user.token, "GET", "/account/usage")).body.total.requests === 5, "rolled up");
    const total = (await send(user.token, "GET", "/account/usage")).body.total;
    // Seen: inputTokens 0, outputTokens 0 after 5 requests of ~1,000 tokens each.
    expect(total.inputTokens).toBeGreaterThanOrEqual(5 * 900);
  });
});
