/**
 * A turn that played nothing (no model configured, no scripted step left) called no provider: it
 * is not charged. Before, its one request was recorded at weft's estimate of the whole history and
 * counted against the user's budgets (new-user trial).
 */
import { expect, it } from "vitest";
import { stubOf } from "../helpers.js";
import { until } from "./race.js";
import { accountOfUser, freshUser, send } from "./users.js";

it("a turn with nothing to play records no usage and leaves no reservation, under a budget too", async () => {
  const user = await freshUser("nothing-to-play");
  expect((await send(user.token, "PUT", "/account/budgets", { budgets: [{ scope: "user", period: "day", tokens: 1_000_000 }] })).status).toBe(200);
  const id = (await send(user.token, "POST", "/threads", { agent: "nested" })).body.threadId as string;
  expect((await send(user.token, "POST", `/threads/${id}/messages`, { content: "hello" })).status).toBe(202);
  await stubOf(id).waitIdle();
  const messages = (await send(user.token, "GET", `/threads/${id}/messages`)).body.messages as Array<{ role: string; content: string }>;
  expect(messages.at(-1)).toMatchObject({ role: "system", content: expect.stringMatching(/^Nothing to play/) });
  const usage = (await send(user.token, "GET", `/threads/${id}/usage`)).body;
  expect({ requests: usage.total.requests, rows: usage.requests }).toEqual({ requests: 0, rows: [] });
  await until(async () => (await accountOfUser(user.userId).openReservations()) === 0, "the turn's reservation released");
  expect((await send(user.token, "GET", "/account/usage")).body.total).toMatchObject({ requests: 0, inputTokens: 0 });
});
