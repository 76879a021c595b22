/**
 * The price table, request rows and budget definitions, as plain functions: shipped prices,
 * a deployment's override with its own version, a row's cost kept as computed, estimates marked,
 * and budgets checked with the offending path.
 */
import { describe, expect, it } from "vitest";
import { isWeftError } from "../../src/errors.js";
import { budgetsFor, checkBudgets, deploymentBudgets } from "../../src/usage/budgets.js";
import { inputBound } from "../../src/usage/input-bound.js";
import { SHIPPED_PRICES, costMicroUsd, priceOf, priceTableOf } from "../../src/usage/prices.js";
import { estimateInput, modelUsageRow, userPaidInputFloor } from "../../src/usage/row.js";

const answered = { turnId: "t1", step: 1, durationMs: 12.4, sent: [{ content: "hello there" }], answered: "hi" };

describe("prices", () => {
  it("prices each model weft names, by the model id whatever the provider package", () => {
    for (const id of ["openai:gpt-4.1-mini", "openai-chat:gpt-4.1-mini", "openai.responses:gpt-4.1", "openai:gpt-4o-mini", "openai:gpt-4.1-nano", "anthropic:claude-haiku-4-5"]) {
      expect(priceOf(SHIPPED_PRICES, id), id).toBeDefined();
    }
    expect(priceOf(SHIPPED_PRICES, "openai-compatible:unknown")).toBeUndefined();
  });

  it("costs fresh input, cache reads and writes, and output each at its own price, in micro-USD rounded up", () => {
    const price = { input: 1, cachedInput: 0.1, cacheWrite: 1.25, output: 5 };
    expect(costMicroUsd({ input: 1000, cached: 600, cacheWrite: 100, output: 10 }, price)).toBe(300 * 1 + 600 * 0.1 + 100 * 1.25 + 10 * 5);
    expect(costMicroUsd({ input: 1, cached: 0, cacheWrite: 0, output: 0 }, { input: 0.1, output: 0 })).toBe(1);
  });

  it("a deployment's WEFT_PRICES lays its prices over the shipped ones under its own version; rows keep the version they were costed at", () => {
    const env = { WEFT_PRICES: JSON.stringify({ version: "acme-2027-01", models: { "gpt-4.1-mini": { input: 1, output: 2 } } }) };
    const table = priceTableOf(env);
    expect(table.version).toBe("acme-2027-01");
    expect(priceOf(table, "openai:gpt-4.1-mini")).toEqual({ input: 1, output: 2 });
    expect(priceOf(table, "openai:gpt-4o")).toEqual(SHIPPED_PRICES.models["gpt-4o"]);
    const usage = { inputTokens: 1000, outputTokens: 100 };
    const before = modelUsageRow({ ...answered, model: "openai:gpt-4.1-mini", usage }, SHIPPED_PRICES);
    const after = modelUsageRow({ ...answered, model: "openai:gpt-4.1-mini", usage }, table);
    expect([before.costMicroUsd, before.priceVersion]).toEqual([1000 * 0.4 + 100 * 1.6, SHIPPED_PRICES.version]);
    expect([after.costMicroUsd, after.priceVersion]).toEqual([1000 + 200, "acme-2027-01"]);
    expect(() => priceTableOf({ WEFT_PRICES: '{"version":"x","models":{"m":{"input":-1,"output":1}}}' })).toThrow(/models\.m\.input/);
    expect(() => priceTableOf({ WEFT_PRICES: "not json" })).toThrow(/WEFT_PRICES/);
  });

  it("keeps reported counts as they are, and estimates (marked) only when the provider reported none", () => {
    const reported = modelUsageRow({ ...answered, model: "scripted", usage: { inputTokens: 3, outputTokens: 0 } }, SHIPPED_PRICES);
    expect(reported).toMatchObject({ inputTokens: 3, outputTokens: 0, estimated: false, provider: "scripted", durationMs: 12 });
    const estimated = modelUsageRow({ ...answered, model: "scripted", usage: {} }, SHIPPED_PRICES);
    expect(estimated.estimated).toBe(true);
    expect(estimated.inputTokens).toBeGreaterThan(0);
    expect(estimated.outputTokens).toBe(1);
    // A failed request's partial stream is counted by its characters, never past the output bound it sent.
    const failed = modelUsageRow({ ...answered, model: "scripted", usage: {}, receivedQuarters: 4000, failed: true }, SHIPPED_PRICES);
    expect([failed.failed, failed.estimated, failed.outputTokens]).toEqual([true, true, 1000]);
    expect(modelUsageRow({ ...answered, model: "scripted", usage: {}, receivedQuarters: 4000, outputBound: 64 }, SHIPPED_PRICES).outputTokens).toBe(64);
  });

  it("bounds a request's input tokens by the UTF-8 bytes it sends", () => {
    const text = "naïve 東京 ".repeat(50);
    const bound = inputBound({ system: "be brief", messages: [{ content: text } as never], tools: [] });
    expect(bound).toBeGreaterThanOrEqual(new TextEncoder().encode(text).length);
  });
});

describe("budget definitions", () => {
  it("refuses a malformed budget naming its path", () => {
    const refused = (value: unknown) => {
      try {
        checkBudgets(value, ["budgets"]);
      } catch (e) {
        if (isWeftError(e)) return [e.code, e.details?.path];
      }
      return null;
    };
    expect(refused([{ scope: "user", period: "day", tokens: 5 }])).toBeNull();
    expect(refused({})).toEqual(["invalid_request", ["budgets"]]);
    expect(refused([{ scope: "galaxy", period: "day", tokens: 5 }])).toEqual(["invalid_request", ["budgets", 0, "scope"]]);
    expect(refused([{ scope: "user", period: "day", tokens: 1.5 }])).toEqual(["invalid_request", ["budgets", 0, "tokens"]]);
    expect(refused([{ scope: "user", period: "day", costUsd: -1 }])).toEqual(["invalid_request", ["budgets", 0, "costUsd"]]);
    expect(refused([{ scope: "user", period: "day" }])).toEqual(["invalid_request", ["budgets", 0]]);
    expect(refused([{ scope: "user", period: "day", tokens: 1, agent: "a" }])).toEqual(["invalid_request", ["budgets", 0, "agent"]]);
    expect(refused([{ scope: "user", period: "day", tokens: 1, extra: 1 }])).toEqual(["invalid_request", ["budgets", 0, "extra"]]);
  });

  it("applies an agent's budgets to that agent and the deployment's to every agent it names (or all)", () => {
    const env = {
      WEFT_BUDGETS: JSON.stringify([
        { scope: "user", period: "month", costUsd: 50 },
        { scope: "agent", period: "day", tokens: 1000, agent: "other" },
        { scope: "agent", period: "day", tokens: 2000 },
      ]),
    };
    const budgets = budgetsFor("desk", [{ scope: "agent", period: "lifetime", tokens: 9 }], env);
    expect(budgets).toEqual([
      { scope: "agent", period: "lifetime", tokens: 9, agent: "desk", id: "agent:desk#0" },
      { scope: "user", period: "month", costUsd: 50, id: "deployment#0" },
      { scope: "agent", period: "day", tokens: 2000, id: "deployment#2" },
    ]);
    expect(deploymentBudgets({})).toEqual([]);
    expect(() => deploymentBudgets({ WEFT_BUDGETS: '[{"scope":"user"}]' })).toThrow(/WEFT_BUDGETS\.0\.period/);
  });

  it("a negative, fractional or non-finite count a provider reports is read as not reported, so no row lowers what budgets count as used", () => {
    const row = modelUsageRow({ ...answered, model: "openai:gpt-4.1-mini", usage: { inputTokens: -1_000_000, outputTokens: 7, cachedInputTokens: -5, reasoningTokens: 1.5, cacheWriteTokens: Number.NaN } }, SHIPPED_PRICES);
    // The input is estimated from what was sent (marked), the output kept as reported.
    expect([row.outputTokens, row.cachedInputTokens, row.reasoningTokens, row.cacheWriteTokens, row.estimated]).toEqual([7, 0, 0, 0, true]);
    expect(row.inputTokens).toBe(estimateInput({ ...answered, model: "openai:gpt-4.1-mini" }));
    expect(row.costMicroUsd).toBeGreaterThanOrEqual(0);
    // Both main counts unusable: the row is estimated from what was sent and received, as when nothing is reported.
    const estimated = modelUsageRow({ ...answered, model: "openai:gpt-4.1-mini", usage: { inputTokens: -1, outputTokens: Number.POSITIVE_INFINITY } }, SHIPPED_PRICES);
    expect(estimated.estimated).toBe(true);
    expect(estimated.inputTokens).toBeGreaterThan(0);
  });

  it("an input of 0 is no report (every request sends something), and a user-paid row counts at least its floor (hostile review: an endpoint reporting 0 made budgets never fill)", () => {
    const sent = [{ content: "word ".repeat(800) }];
    const zero = modelUsageRow({ ...answered, sent, model: "openai:gpt-4.1-mini", usage: { inputTokens: 0, outputTokens: 0 } }, SHIPPED_PRICES);
    expect([zero.inputTokens, zero.outputTokens, zero.estimated]).toEqual([estimateInput({ sent, model: "openai:gpt-4.1-mini" }), 0, true]);
    expect(zero.inputTokens).toBeGreaterThanOrEqual(1000);
    // A user's endpoint reporting 1 token for 4,000 characters: raised to the floor, marked.
    const low = modelUsageRow({ ...answered, sent, model: "openai:gpt-4.1-mini", userPaid: true, usage: { inputTokens: 1, outputTokens: 1 } }, SHIPPED_PRICES);
    expect([low.inputTokens, low.estimated]).toEqual([userPaidInputFloor({ sent, model: "openai:gpt-4.1-mini" }), true]);
    expect(low.inputTokens).toBeGreaterThanOrEqual(500);
    // An honest count above the floor stands, unmarked; the deployment's own provider is trusted as it reports.
    const honest = modelUsageRow({ ...answered, sent, model: "openai:gpt-4.1-mini", userPaid: true, usage: { inputTokens: 801, outputTokens: 1 } }, SHIPPED_PRICES);
    expect([honest.inputTokens, honest.estimated]).toEqual([801, false]);
    const deployment = modelUsageRow({ ...answered, sent, model: "openai:gpt-4.1-mini", usage: { inputTokens: 1, outputTokens: 1 } }, SHIPPED_PRICES);
    expect([deployment.inputTokens, deployment.estimated]).toEqual([1, false]);
    // Its output too (review 22g: 0 reported for 40,000 characters received stood): at least half the estimate.
    const long = "x".repeat(40_000);
    const silent = modelUsageRow({ ...answered, answered: long, sent, model: "openai:gpt-4.1-mini", userPaid: true, usage: { inputTokens: 801, outputTokens: 0 } }, SHIPPED_PRICES);
    expect([silent.outputTokens, silent.estimated]).toEqual([5000, true]);
    const cut = modelUsageRow({ ...answered, answered: "", receivedQuarters: 40_000, sent, model: "openai:gpt-4.1-mini", userPaid: true, usage: { inputTokens: 801, outputTokens: 0 }, failed: true }, SHIPPED_PRICES);
    expect(cut.outputTokens).toBe(5000);
    expect(modelUsageRow({ ...answered, answered: long, sent, model: "openai:gpt-4.1-mini", usage: { inputTokens: 801, outputTokens: 0 } }, SHIPPED_PRICES).outputTokens).toBe(0);
  });
});
