/**
 * The usage ledger against the fake provider in each wire format: what `GET /threads/:id/usage`
 * reads back equals what the provider reported, token for token (cached and reasoning tokens
 * included), costed from the shipped price table; an answer without usage is estimated and marked;
 * tool calls count their attempts; the account rolls the thread up per agent, model and day.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { rollUp } from "../../src/usage/account-ledger.js";
import { SHIPPED_PRICES } from "../../src/usage/prices.js";
import { type FakeStep, fakeEnv, fakeKey, scriptFake } from "../fake-provider.js";
import { inThread, stubOf } from "../helpers.js";
import { FAKE_BASE, fakeRequests } from "../fake-provider.js";
import { accountOfUser, freshUser, send } from "./users.js";

type Reported = { input: number; output: number; cached: number; reasoning: number; cacheWrite: number };

/** A scripted 3-step turn: two steps of tool calls, then the answer, each reporting its own usage. */
function threeSteps(usage: Reported[]): FakeStep[] {
  return [
    { toolCalls: [{ id: "u1", name: "person", arguments: '{"name":"A","age":1}' }], usage: usage[0]! },
    { toolCalls: [{ id: "u2", name: "person", arguments: '{"name":"B","age":2}' }], usage: usage[1]! },
    { text: "done", usage: usage[2]! },
  ];
}

async function turnAs(token: string, spec: string, steps: FakeStep[]): Promise<string> {
  const key = fakeKey("usage");
  await scriptFake(key, steps);
  const created = await send(token, "POST", "/threads", { agent: "streaming", env: fakeEnv(spec, key) });
  expect(created.status).toBe(201);
  const id = created.body.threadId as string;
  expect((await send(token, "POST", `/threads/${id}/messages`, { content: "go" })).status).toBe(202);
  await stubOf(id).waitIdle();
  return id;
}

const sum = (rows: Reported[], k: keyof Reported) => rows.reduce((n, r) => n + r[k], 0);

const FORMATS: Array<[string, string, Reported[]]> = [
  ["OpenAI Chat Completions", "openai-chat:gpt-4.1-mini", [
    { input: 1200, output: 40, cached: 0, reasoning: 0, cacheWrite: 0 },
    { input: 1310, output: 37, cached: 1024, reasoning: 12, cacheWrite: 0 },
    { input: 1420, output: 9, cached: 1280, reasoning: 3, cacheWrite: 0 },
  ]],
  ["OpenAI Responses", "openai:gpt-4.1", [
    { input: 900, output: 51, cached: 0, reasoning: 30, cacheWrite: 0 },
    { input: 1003, output: 44, cached: 896, reasoning: 20, cacheWrite: 0 },
    { input: 1111, output: 7, cached: 1000, reasoning: 0, cacheWrite: 0 },
  ]],
  ["Anthropic Messages", "anthropic:claude-haiku-4-5", [
    { input: 2100, output: 60, cached: 0, reasoning: 25, cacheWrite: 2000 },
    { input: 2230, output: 33, cached: 2000, reasoning: 0, cacheWrite: 200 },
    { input: 2350, output: 11, cached: 2200, reasoning: 4, cacheWrite: 100 },
  ]],
];

describe("the usage ledger", () => {
  for (const [format, spec, reported] of FORMATS) {
    it(`a 3-step turn over ${format}: GET /threads/:id/usage equals what the provider reported, token for token`, async () => {
      const user = await freshUser();
      const id = await turnAs(user.token, spec, threeSteps(reported));
      const { status, body } = await send(user.token, "GET", `/threads/${id}/usage`);
      expect(status).toBe(200);
      // An attempt a deadline cut under load is a row too (marked failed): the answers are compared.
      const failed = body.requests.filter((r: any) => r.failed);
      body.requests = body.requests.filter((r: any) => !r.failed);
      const plus = (k: string) => failed.reduce((n: number, r: any) => n + r[k], 0);
      expect(body.requests.map((r: any) => ({ input: r.inputTokens, output: r.outputTokens, cached: r.cachedInputTokens, reasoning: r.reasoningTokens, cacheWrite: r.cacheWriteTokens }))).toEqual(reported);
      expect(body.requests.every((r: any) => r.estimated === false && r.model === spec && r.provider === spec.split(":")[0]!.split(".")[0])).toBe(true);
      const totals = {
        requests: 3 + failed.length,
        inputTokens: sum(reported, "input") + plus("inputTokens"),
        outputTokens: sum(reported, "output") + plus("outputTokens"),
        cachedInputTokens: sum(reported, "cached") + plus("cachedInputTokens"),
        reasoningTokens: sum(reported, "reasoning") + plus("reasoningTokens"),
        cacheWriteTokens: sum(reported, "cacheWrite") + plus("cacheWriteTokens"),
        estimatedRequests: failed.filter((r: any) => r.estimated).length,
      };
      expect(body.total).toMatchObject(totals);
      expect(body.turns).toHaveLength(1);
      expect(body.turns[0]).toMatchObject(totals);
      // Each row is costed from the shipped table, and keeps the version it was costed at.
      const price = SHIPPED_PRICES.models[spec.split(":")[1]!]!;
      const micro = reported.map((r) => Math.ceil((r.input - r.cached - r.cacheWrite) * price.input + r.cached * price.cachedInput! + r.cacheWrite * (price.cacheWrite ?? price.input) + r.output * price.output - 1e-9));
      expect(body.requests.map((r: any) => r.costMicroUsd)).toEqual(micro);
      expect(body.requests.every((r: any) => r.priceVersion === SHIPPED_PRICES.version)).toBe(true);
      expect(body.total.costUsd).toBeCloseTo((micro.reduce((a, b) => a + b, 0) + plus("costMicroUsd")) / 1e6, 9);
      // Both tool calls ran once each.
      expect(body.total.tools).toMatchObject({ calls: 2, attempts: 2 });
      expect(body.turns[0].tools).toMatchObject({ calls: 2, attempts: 2 });
    });
  }

  it("an answer that reports no usage is estimated, and marked so", async () => {
    const user = await freshUser();
    const id = await turnAs(user.token, "openai-chat:gpt-4.1-mini", [{ text: "a short answer", usage: "none" }]);
    const { body } = await send(user.token, "GET", `/threads/${id}/usage`);
    expect(body.requests).toHaveLength(1);
    expect(body.requests[0].estimated).toBe(true);
    expect(body.requests[0].inputTokens).toBeGreaterThan(0);
    expect(body.requests[0].outputTokens).toBe(Math.ceil("a short answer".length / 4));
    expect(body.total.estimatedRequests).toBe(1);
  });

  it("a failed attempt (an HTTP error, a stream reset mid-way) is recorded, marked failed, and rolled up in the account", async () => {
    const user = await freshUser();
    const long = "x".repeat(4000);
    const id = await turnAs(user.token, "openai-chat:gpt-4.1-mini", [
      { error: { status: 500, message: "upstream broke" } },
      { text: long, chunk: 400, resetAfterEvents: 6 },
      // A count at least half weft's estimate of what was sent: a user-paid row keeps it as reported.
      { text: "answer", usage: { input: 5000, output: 5 } },
    ]);
    const { body } = await send(user.token, "GET", `/threads/${id}/usage`);
    expect(body.requests.map((r: any) => [r.failed, r.estimated])).toEqual([[true, true], [true, true], [false, false]]);
    // Each attempt counts what was sent; the reset one also what it streamed before the reset (a quarter token a character).
    expect(body.requests[0].inputTokens).toBeGreaterThan(0);
    expect(body.requests[0].outputTokens).toBe(0);
    expect(body.requests[1].inputTokens).toBe(body.requests[0].inputTokens);
    expect(body.requests[1].outputTokens).toBeGreaterThanOrEqual(400 / 4);
    expect(body.requests[1].outputTokens).toBeLessThan(long.length / 4);
    expect(body.requests[1].costMicroUsd).toBeGreaterThan(0);
    expect(body.total.requests).toBe(3);
    // The account counts every attempt (what day, month and lifetime budgets are held against).
    for (let i = 0; i < 500 && (await send(user.token, "GET", "/account/usage")).body.total.requests < 3; i++) await new Promise((r) => setTimeout(r, 20));
    const account = (await send(user.token, "GET", "/account/usage")).body.total;
    expect(account).toMatchObject({ requests: 3, inputTokens: 2 * body.requests[0].inputTokens + 5000, outputTokens: body.requests[1].outputTokens + 5 });
  });

  it("the requests that summarize a history for compaction are in the ledger too, under the turn (step 0)", async () => {
    const user = await freshUser();
    const [main, summarizer] = [fakeKey("main"), fakeKey("sum")];
    await scriptFake(summarizer, Array.from({ length: 12 }, (_, i) => ({ text: `summary v${i + 1}`, usage: { input: 700 + i, output: 30 } })));
    await scriptFake(main, [{ text: "answer", usage: { input: 1500, output: 8 } }]);
    const created = await send(user.token, "POST", "/threads", {
      agent: "summarized",
      env: { ...fakeEnv("openai-chat:gpt-4.1-mini", main), ANTHROPIC_API_KEY: { value: summarizer, type: "secret" }, ANTHROPIC_BASE_URL: { value: FAKE_BASE, type: "text" } },
    });
    const id = created.body.threadId as string;
    await inThread(id, (instance) =>
      instance.store.atomically(() => {
        for (let i = 0; i < 30; i++) instance.store.messages.append({ role: i % 2 ? "assistant" : "user", content: `chatter ${i} `.padEnd(400, "·") });
      }),
    );
    await send(user.token, "POST", `/threads/${id}/messages`, { content: "what next?" });
    await stubOf(id).waitIdle();
    const passes = (await fakeRequests(summarizer)).length;
    expect(passes).toBeGreaterThanOrEqual(2);
    const { body } = await send(user.token, "GET", `/threads/${id}/usage`);
    const summaries = body.requests.filter((r: any) => r.step === 0);
    expect(summaries.map((r: any) => [r.model, r.inputTokens, r.outputTokens])).toEqual(Array.from({ length: passes }, (_, i) => ["anthropic:claude-sonnet-4-5", 700 + i, 30]));
    expect(body.requests.filter((r: any) => r.step === 1).map((r: any) => r.inputTokens)).toEqual([1500]);
    expect(body.turns).toHaveLength(1);
    expect(body.turns[0].requests).toBe(passes + 1);
  });

  it("a prompt called as a tool counts under the turn that called it", async () => {
    const user = await freshUser();
    const created = await send(user.token, "POST", "/threads", { agent: "nested" });
    const id = created.body.threadId as string;
    const script = [{ text: "", toolCalls: [{ id: "s1", name: "summarize", arguments: { input: "a long text" } }] }, { text: "summary: short" }, { text: "done" }];
    await send(user.token, "POST", `/threads/${id}/messages`, { content: "summarise this", script });
    await stubOf(id).waitIdle();
    const info = (await send(user.token, "GET", `/threads/${id}`)).body;
    expect(info.lastTurn.status).toBe("completed");
    const { body } = await send(user.token, "GET", `/threads/${id}/usage`);
    expect(body.requests.map((r: any) => [r.turnId, r.model, r.estimated])).toEqual([
      [info.lastTurn.turnId, "scripted", true],
      [info.lastTurn.turnId, "scripted", true],
      [info.lastTurn.turnId, "scripted", true],
    ]);
    expect(body.turns.map((t: any) => [t.turnId, t.requests])).toEqual([[info.lastTurn.turnId, 3]]);
  });

  it("another user's thread's usage is not found", async () => {
    const owner = await freshUser();
    const other = await freshUser();
    const id = await turnAs(owner.token, "openai-chat:gpt-4.1-mini", [{ text: "mine" }]);
    const { status, body } = await send(other.token, "GET", `/threads/${id}/usage`);
    expect(status).toBe(404);
    expect(body.error.code).toBe("thread_not_found");
  });

  it("the account rolls its threads up per model, agent and day; bad queries are refused with their path", async () => {
    const user = await freshUser();
    const [chat, responses] = [FORMATS[0]!, FORMATS[1]!];
    await turnAs(user.token, chat[1], threeSteps(chat[2]));
    await turnAs(user.token, responses[1], threeSteps(responses[2]));
    // The rollups are sent after the answers (a thread's unbudgeted requests together, within a second), not awaited by the turn: read once all six landed.
    for (let i = 0; i < 500 && (await send(user.token, "GET", "/account/usage")).body.total.requests < 6; i++) await new Promise((r) => setTimeout(r, 20));
    const byModel = await send(user.token, "GET", "/account/usage?groupBy=model");
    expect(byModel.status).toBe(200);
    expect(byModel.body.total).toMatchObject({ requests: 6, inputTokens: sum(chat[2], "input") + sum(responses[2], "input"), outputTokens: sum(chat[2], "output") + sum(responses[2], "output") });
    // Ordered by model id ("openai-chat:..." before "openai:...").
    expect(byModel.body.groups.map((g: any) => [g.key, g.inputTokens, g.reasoningTokens])).toEqual([
      [chat[1], sum(chat[2], "input"), sum(chat[2], "reasoning")],
      [responses[1], sum(responses[2], "input"), sum(responses[2], "reasoning")],
    ]);
    const byAgent = await send(user.token, "GET", "/account/usage?groupBy=agent");
    expect(byAgent.body.groups.map((g: any) => [g.key, g.requests])).toEqual([["streaming", 6]]);
    const today = new Date().toISOString().slice(0, 10);
    const byDay = await send(user.token, "GET", `/account/usage?from=${today}&to=${today}&groupBy=day`);
    expect(byDay.body.groups.map((g: any) => [g.key, g.requests])).toEqual([[today, 6]]);
    const past = await send(user.token, "GET", "/account/usage?from=2020-01-01&to=2020-01-31");
    expect(past.body.total.requests).toBe(0);
    const bad = await send(user.token, "GET", "/account/usage?groupBy=tool");
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.path).toEqual(["groupBy"]);
    const badDay = await send(user.token, "GET", "/account/usage?from=yesterday");
    expect(badDay.status).toBe(400);
    expect(badDay.body.error.details.path).toEqual(["from"]);
    // A day that does not exist (hostile review: 2026-02-30 was read as March 2nd), and a range the wrong way round.
    for (const [query, path] of [["from=2026-02-30", "from"], ["to=2026-04-31", "to"], ["from=2026-13-01", "from"], ["from=2026-03-02&to=2026-03-01", "from"]]) {
      const refused = await send(user.token, "GET", `/account/usage?${query}`);
      expect([query, refused.status, refused.body.error.details.path]).toEqual([query, 400, [path]]);
    }
    expect((await send(user.token, "GET", "/account/usage?from=2028-02-29&to=2028-02-29")).status).toBe(200);
  });

  it("the account counts each of a thread's rows once, in order: a batch sent twice counts once, one that skips rows is answered with the last row it has", async () => {
    const user = await freshUser();
    const account = accountOfUser(user.userId);
    const at = Date.now();
    const row = (n: number) => ({ row: n, turnId: "turn_a", model: "openai-chat:gpt-4.1-mini", inputTokens: 10 * n, outputTokens: n, cachedInputTokens: 0, reasoningTokens: 0, cacheWriteTokens: 0, estimated: false, durationMs: 5, costMicroUsd: 0, at });
    const batch = (fromRow: number, rows: number[]) => ({ threadId: "thread_a", agentId: "metered", fromRow, rows: rows.map(row) });
    expect(await account.settleUsage(batch(1, [1, 2]))).toEqual({ ok: true, value: { behind: null } });
    // Sent again (an answer lost on the way back, say) and overlapping the next: rows 1 and 2 are not counted twice.
    expect(await account.settleUsage(batch(1, [1, 2]))).toEqual({ ok: true, value: { behind: null } });
    expect(await account.settleUsage(batch(2, [2, 3]))).toEqual({ ok: true, value: { behind: null } });
    // Rows 4 and 5 never arrived (their instance crashed before sending): row 6 alone is refused, naming row 3.
    expect(await account.settleUsage(batch(6, [6]))).toEqual({ ok: true, value: { behind: 3 } });
    const read = async () => (await send(user.token, "GET", "/account/usage")).body.total;
    expect(await read()).toMatchObject({ requests: 3, inputTokens: 60, outputTokens: 6 });
    expect(await account.settleUsage(batch(4, [4, 5, 6]))).toEqual({ ok: true, value: { behind: null } });
    expect(await read()).toMatchObject({ requests: 6, inputTokens: 210, outputTokens: 21 });
    // Another thread's rows are its own sequence.
    expect(await account.settleUsage({ ...batch(1, [1]), threadId: "thread_b" })).toEqual({ ok: true, value: { behind: null } });
    expect(await read()).toMatchObject({ requests: 7 });
    // A thread whose rows 1 to 3 were rolled up one settle at a time, before rows were counted: its first batch is not sent back for them.
    const ns = (env as unknown as { ACCOUNT: DurableObjectNamespace }).ACCOUNT;
    await runInDurableObject(ns.get(ns.idFromName(user.userId)), (_account, state) => {
      for (const n of [1, 2, 3]) rollUp(state.storage.sql, { ...row(n), threadId: "thread_c", agentId: "metered" });
    });
    expect(await account.settleUsage({ ...batch(4, [4]), threadId: "thread_c" })).toEqual({ ok: true, value: { behind: null } });
    expect(await read()).toMatchObject({ requests: 11 });
  });
});
