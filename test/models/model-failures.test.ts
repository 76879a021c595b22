import { describe, expect, it } from "vitest";
import { type FakeStep, fakeEnv, fakeKey, fakeRequests, scriptFake } from "../fake-provider.js";
import { createThread, eventsOf, json, stubOf } from "../helpers.js";

async function turnVia(spec: string, steps: FakeStep[]) {
  const key = fakeKey("fail");
  await scriptFake(key, steps);
  const id = await createThread({ agent: "streaming", env: fakeEnv(spec, key) });
  await json("POST", `/threads/${id}/messages`, { content: "go" });
  await stubOf(id).waitIdle();
  const info = (await json("GET", `/threads/${id}`)).body;
  const steps_ = (await eventsOf(id)).filter((f) => f.type === "model_step").map((f) => f.data as any);
  return { id, key, info, modelSteps: steps_, requests: await fakeRequests(key) };
}

describe("model failures", () => {
  it("retries a 503 honouring Retry-After, and records the retry on the step", async () => {
    const { info, modelSteps, requests } = await turnVia("openai-compatible:x", [
      { error: { status: 503, message: "overloaded, try later", retryAfter: "1" } },
      { text: "ok" },
    ]);
    expect(info.lastTurn.status).toBe("completed");
    expect(requests).toHaveLength(2);
    expect(modelSteps[0]).toMatchObject({ attempts: 2, finishReason: "stop" });
    expect(modelSteps[0].retries[0]).toMatch(/overloaded, try later \(retried after 1000 ms\)/);
    expect(info.lastTurn.modelSteps[0]).toMatchObject({ attempts: 2 });
  });

  it("a failure that persists ends the turn failed with the provider's message, after a bounded number of attempts", async () => {
    const busy = { error: { status: 429, message: "rate limit reached for requests", retryAfter: "0" } };
    const { info, requests } = await turnVia("anthropic:claude-sonnet-4-5", [busy, busy, busy, { text: "never" }]);
    expect(requests).toHaveLength(3);
    expect(info.lastTurn.status).toBe("failed");
    expect(info.lastTurn.error).toMatch(/after 3 attempts: .*rate limit reached for requests/);
  });

  it("a client error (400) is not retried", async () => {
    const { info, requests } = await turnVia("openai:gpt-4.1-mini", [{ error: { status: 400, message: "bad tool schema" } }, { text: "never" }]);
    expect(requests).toHaveLength(1);
    expect(info.lastTurn).toMatchObject({ status: "failed" });
    expect(info.lastTurn.error).toContain("bad tool schema");
  });
});

describe("usage and finish reasons", () => {
  it("each model_step carries the step's usage and finish reason; GET /threads/:id sums the turn", async () => {
    const { info, modelSteps } = await turnVia("openai-compatible:x", [
      { toolCalls: [{ id: "c1", name: "person", arguments: '{"name":"A","age":1}' }], usage: { input: 100, output: 20, cached: 40 } },
      { text: "done", usage: { input: 130, output: 5, cached: 100 } },
    ]);
    expect(modelSteps.map((s) => [s.model, s.finishReason, s.usage])).toEqual([
      ["openai-compatible:x", "tool-calls", { inputTokens: 100, outputTokens: 20, cachedInputTokens: 40 }],
      ["openai-compatible:x", "stop", { inputTokens: 130, outputTokens: 5, cachedInputTokens: 100 }],
    ]);
    expect(modelSteps[1].turnUsage).toEqual({ inputTokens: 230, outputTokens: 25, cachedInputTokens: 140 });
    expect(info.lastTurn.usage).toEqual({ inputTokens: 230, outputTokens: 25, cachedInputTokens: 140 });
    expect(info.lastTurn.modelSteps).toHaveLength(2);
  });
});

describe("network failures", () => {
  it("a request whose connection closes without an answer is retried like a 5xx", async () => {
    const { info, modelSteps, requests } = await turnVia("openai-compatible:x", [{ network: "close" }, { text: "through" }]);
    expect(info.lastTurn.status).toBe("completed");
    expect(requests).toHaveLength(2);
    expect(modelSteps[0]).toMatchObject({ attempts: 2 });
    expect(modelSteps[0].retries).toHaveLength(1);
    expect(modelSteps[0].retries[0]).toMatch(/retried after \d+ ms/);
  });
});
