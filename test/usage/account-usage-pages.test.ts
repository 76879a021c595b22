/**
 * `GET /account/usage` answered every group of its range at once (hostile review): a user who names
 * many models (any id goes to an endpoint of their own) or uses weft for years grows the groups
 * past any RPC answer. The groups now come a page at a time, in key order, with a cursor; the
 * total still counts them all.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect, it } from "vitest";
import { rollUp } from "../../src/usage/account-ledger.js";
import { freshUser, send } from "./users.js";

const MODELS = 1500;

/** A fresh user whose account holds one request of each of {@link MODELS} models today. */
async function manyModels(): Promise<string> {
  const user = await freshUser("usage-pages");
  const ns = (env as unknown as { ACCOUNT: DurableObjectNamespace }).ACCOUNT;
  await runInDurableObject(ns.get(ns.idFromName(user.userId)), (_account, state) => {
    const usage = Array.from({ length: MODELS }, (_, i) => ({
      threadId: "t1", agentId: "support", turnId: `turn${i}`, model: `openai-compatible:m${String(i).padStart(4, "0")}`, at: Date.now(), inputTokens: 10, outputTokens: 1,
      cachedInputTokens: 0, reasoningTokens: 0, cacheWriteTokens: 0, estimated: false, durationMs: 1, costMicroUsd: 0,
    }));
    state.storage.transactionSync(() => rollUp(state.storage.sql, usage));
  });
  return user.token;
}

it("the groups come a page at a time with a cursor, the total counts every group, and paging reads each group once", async () => {
  const token = await manyModels();
  const first = await send(token, "GET", "/account/usage?groupBy=model");
  expect(first.status).toBe(200);
  expect(first.body.total.requests).toBe(MODELS);
  expect(first.body.groups).toHaveLength(1000);
  expect(first.body.nextCursor).toBe(`model:${first.body.groups.at(-1).key}`);
  // A cursor goes on in its own grouping only: another grouping's keys it would skip at random.
  const other = await send(token, "GET", `/account/usage?groupBy=day&cursor=${encodeURIComponent(first.body.nextCursor)}`);
  expect(other.status).toBe(400);
  expect(other.body.error).toMatchObject({ code: "invalid_request", details: { path: ["cursor"] } });
  const keys: string[] = [];
  let requests = 0;
  for (let cursor: string | null = null; ; ) {
    const page: { status: number; body: any } = await send(token, "GET", `/account/usage?groupBy=model&limit=400${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    expect(page.status).toBe(200);
    expect(page.body.groups.length).toBeLessThanOrEqual(400);
    expect(page.body.total.requests).toBe(MODELS);
    keys.push(...page.body.groups.map((g: { key: string }) => g.key));
    requests += page.body.groups.reduce((n: number, g: { requests: number }) => n + g.requests, 0);
    cursor = page.body.nextCursor;
    if (cursor === null) break;
  }
  expect(keys).toHaveLength(MODELS);
  expect(new Set(keys).size).toBe(MODELS);
  expect(keys).toEqual([...keys].sort());
  expect(requests).toBe(MODELS);
});

it("a bad limit or an empty cursor is refused with invalid_request naming it", async () => {
  const { token } = await freshUser("usage-pages");
  for (const [q, name] of [["limit=0", "limit"], ["limit=1001", "limit"], ["limit=x", "limit"], ["cursor=", "cursor"]] as const) {
    const res = await send(token, "GET", `/account/usage?${q}`);
    expect(res.status, q).toBe(400);
    expect(res.body.error.code).toBe("invalid_request");
    expect(res.body.error.details.path).toEqual([name]);
  }
  const empty = await send(token, "GET", "/account/usage?groupBy=agent&limit=1");
  expect(empty.status).toBe(200);
  expect(empty.body).toMatchObject({ groups: [], nextCursor: null });
});
