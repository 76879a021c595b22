/**
 * A request that streams reasoning (Anthropic's thinking, reasoning_content of OpenAI-compatible
 * servers, Responses reasoning summaries) and then fails or is stopped before the provider's
 * finish (so no usage came) is charged for the reasoning it received as well as its text: the AI
 * SDK adapter passes `reasoning-delta` parts on, and the attempt's tally counts them. Found by a
 * hostile review: 40,000 characters of reasoning received were charged 0 output tokens.
 */
import { MockLanguageModelV4 } from "ai/test";
import { expect, it } from "vitest";
import { fromLanguageModel } from "../../src/models/ai-sdk.js";
import { AttemptTally } from "../../src/usage/attempt.js";
import { modelUsageRow } from "../../src/usage/row.js";
import { priceTableOf } from "../../src/usage/prices.js";

const REASONING_CHARS = 40_000;

function thinkingThenCut(): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    provider: "anthropic.messages",
    modelId: "claude-sonnet-4-5",
    doStream: async () => ({
      stream: new ReadableStream({
        start(c) {
          c.enqueue({ type: "stream-start", warnings: [] });
          c.enqueue({ type: "reasoning-start", id: "r1" });
          for (let i = 0; i < REASONING_CHARS / 100; i++) c.enqueue({ type: "reasoning-delta", id: "r1", delta: "x".repeat(100) });
          // The connection is reset (or the user stops the turn) before the answer and its usage,
          // once what came was read (erroring a stream at once would drop its queued parts).
          setTimeout(() => c.error(new TypeError("network connection lost")), 20);
        },
      }) as never,
    }),
  });
}

it("reasoning received before a cut counts in what the failed request is charged", async () => {
  const model = fromLanguageModel(thinkingThenCut(), { id: "anthropic:claude-sonnet-4-5", wire: "anthropic" });
  const tally = new AttemptTally();
  const kinds = new Set<string>();
  await expect(
    (async () => {
      for await (const part of model.stream({ threadId: "t", turnId: "turn_1", step: 1, messages: [{ role: "user", content: "think hard" }] as never, tools: [], signal: new AbortController().signal })) {
        kinds.add(part.type);
        tally.part(part);
      }
    })(),
  ).rejects.toThrow();
  const row = modelUsageRow(
    { turnId: "turn_1", step: 1, model: "anthropic:claude-sonnet-4-5", usage: tally.usage, durationMs: 1000, sent: [{ content: "think hard" }], answered: "", receivedQuarters: tally.quarters, failed: true, outputBound: 32_000 },
    priceTableOf({}),
  );
  expect({ partsSeenByWeft: [...kinds], charsCounted: tally.quarters, outputTokensCharged: row.outputTokens }).toEqual({
    partsSeenByWeft: ["reasoning-delta"],
    charsCounted: REASONING_CHARS,
    outputTokensCharged: REASONING_CHARS / 4,
  });
});

it("what a cut request received is estimated by script, as a window is: an emoji or a CJK character is a token or more, not a quarter (review 22e: 1,000 crabs were charged 500)", () => {
  const tally = new AttemptTally();
  tally.part({ type: "text-delta", delta: "\u{1F980}".repeat(1000) });
  tally.part({ type: "text-delta", delta: "漢".repeat(1000) });
  const row = modelUsageRow({ turnId: "t", step: 1, model: "anthropic:claude-sonnet-4-5", usage: {}, durationMs: 5, sent: [{ content: "go" }], answered: "", receivedQuarters: tally.quarters, failed: true }, priceTableOf({}));
  expect(row.outputTokens).toBeGreaterThanOrEqual(2000);
});

