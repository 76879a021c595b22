/**
 * The shipping expert (agents/agents/shipping_expert.ts) on a recorded provider: its requests and the provider's streamed
 * answers were recorded once (agents/tests/recordings/shipping-lookup.json, no key or secret in
 * it) and are replayed offline. Change the prompt or a tool's schema and the replay fails with
 * the paths that differ; record again with `WEFT_RECORD=1 npm run test:agents` (docs/testing.md).
 */
import { expect, it } from "vitest";
import { createTestThread, recorded } from "weft/testing";

it("the shipping expert looks the order up and answers from it, on a recorded OpenAI model", async () => {
  // An agent with its own tools list: the example agent offers every tool in agents/tools/, so a
  // tool you add would change its requests, and its recording.
  const thread = await createTestThread({
    agent: "shipping_expert",
    model: recorded("agents/tests/recordings/shipping-lookup.json", { model: "openai:gpt-4.1-mini" }),
  });
  const turn = await thread.post("Where is my order A-1001?");
  expect(turn.turn).toMatchObject({ status: "completed", steps: 2 });
  expect(turn.calls.map((c) => [c.toolName, c.input, c.status])).toEqual([["lookup_order", { orderId: "A-1001" }, "succeeded"]]);
  expect(turn.text).toBe("Your blue kettle (A-1001) has shipped with Parcelo and should arrive on 2 December.");
});

it("a request that differs from the recording fails the post with the paths that differ", async () => {
  const thread = await createTestThread({
    agent: "shipping_expert",
    model: recorded("agents/tests/recordings/shipping-lookup.json", { model: "openai:gpt-4.1-mini" }),
  });
  await expect(thread.post("Where is A-1001?")).rejects.toThrow(
    'request 1 differs from the recording (record again with WEFT_RECORD=1 if the change is intended):\n  at $.body.input[1].content[0].text: recorded "Where is my order A-1001?", sent "Where is A-1001?"',
  );
});
