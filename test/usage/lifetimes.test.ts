/**
 * The account counts a thread's usage by the rows its ledger numbers; a thread made again on a
 * deleted thread's id (same `continuationToken`) numbers its rows from 1 again, and its usage
 * must count all the same (it was taken as already sent, so the user's totals and budgets missed it).
 */
import { describe, expect, it } from "vitest";
import { fakeEnv, fakeKey, scriptFake } from "../fake-provider.js";
import { stubOf, until } from "../helpers.js";
import { freshUser, send } from "./users.js";

/** The thread of `token` made (again) as `user`, with one turn whose one request reports `input` tokens. */
async function oneTurn(user: { token: string }, token: string, input: number): Promise<string> {
  const key = fakeKey("lifetimes");
  await scriptFake(key, [{ text: "answer", usage: { input, output: 5 } }]);
  const created = await send(user.token, "POST", "/threads", { agent: "streaming", continuationToken: token, env: fakeEnv("openai-chat:gpt-4.1-mini", key) });
  expect(created.status).toBe(201);
  const id = created.body.threadId as string;
  expect((await send(user.token, "POST", `/threads/${id}/messages`, { content: "go" })).status).toBe(202);
  await stubOf(id).waitIdle();
  return id;
}

const accountTotal = async (user: { token: string }) => (await send(user.token, "GET", "/account/usage")).body.total as { requests: number; inputTokens: number };

describe("usage of a thread made again on a deleted thread's id", () => {
  it("counts in the account like the first thread's", async () => {
    const user = await freshUser("lifetimes");
    const token = `usage-lifetimes:${crypto.randomUUID()}`;
    const id = await oneTurn(user, token, 1000);
    await until(async () => (await accountTotal(user)).requests >= 1, "the first thread's request in the account");
    expect((await send(user.token, "DELETE", `/threads/${id}`)).status).toBe(200);

    expect(await oneTurn(user, token, 3000)).toBe(id);
    expect((await send(user.token, "GET", `/threads/${id}/usage`)).body.total).toMatchObject({ requests: 1, inputTokens: 3000 });
    await until(async () => (await accountTotal(user)).requests >= 2, "the second thread's request in the account", 5000).catch(() => undefined);
    expect(await accountTotal(user)).toMatchObject({ requests: 2, inputTokens: 4000 });
  });
});
