import { describe, expect, it } from "vitest";
import { type FakeStep, FAKE_BASE, fakeEnv, fakeKey, fakeRequests, scriptFake } from "../fake-provider.js";
import { createThread, eventsOf, json, messagesOf, stubOf } from "../helpers.js";

const busy = (status: number): FakeStep => ({ error: { status, message: `busy ${status}`, retryAfter: "0" } });

/** A thread of the `fallbacks` agent: its own model an OpenAI-compatible one, then Anthropic, then OpenAI, each with a key of its own at the fake. */
async function turnWith(script: { primary: FakeStep[]; anthropic?: FakeStep[]; openai?: FakeStep[] }) {
  const keys = { primary: fakeKey("primary"), anthropic: fakeKey("anthropic"), openai: fakeKey("openai") };
  await scriptFake(keys.primary, script.primary);
  await scriptFake(keys.anthropic, script.anthropic ?? []);
  await scriptFake(keys.openai, script.openai ?? []);
  const id = await createThread({
    agent: "fallbacks",
    env: {
      ...fakeEnv("openai-compatible:x", keys.primary),
      ANTHROPIC_API_KEY: { value: keys.anthropic, type: "secret" },
      ANTHROPIC_BASE_URL: { value: FAKE_BASE, type: "text" },
      OPENAI_API_KEY: { value: keys.openai, type: "secret" },
      OPENAI_BASE_URL: { value: FAKE_BASE, type: "text" },
    },
  });
  await json("POST", `/threads/${id}/messages`, { content: "who is Ana?" });
  await stubOf(id).waitIdle();
  const info = (await json("GET", `/threads/${id}`)).body;
  const steps = (await eventsOf(id)).filter((f) => f.type === "model_step").map((f) => f.data as any);
  const requests = { primary: await fakeRequests(keys.primary), anthropic: await fakeRequests(keys.anthropic), openai: await fakeRequests(keys.openai) };
  return { id, info, steps, requests };
}

describe("fallback models", () => {
  it("a 5xx that persists after the retries moves on to the first fallback; the step records who answered", async () => {
    const { info, steps, requests } = await turnWith({ primary: [busy(503), busy(503), busy(503)], anthropic: [{ text: "Ana is 30" }] });
    expect(info.lastTurn.status).toBe("completed");
    expect(requests.primary).toHaveLength(3);
    expect(requests.anthropic).toHaveLength(1);
    expect(requests.openai).toHaveLength(0);
    expect(steps[0]).toMatchObject({ model: "anthropic:claude-sonnet-4-5", attempts: 4, finishReason: "stop" });
    expect(steps[0].retries.at(-1)).toMatch(/model openai-compatible:x failed after 3 attempts: .*busy 503; falling back to anthropic:claude-sonnet-4-5/);
  });

  it("tries the fallbacks in order; a provider's error answer (not retried) also falls back; a later step starts with the agent's own model again", async () => {
    const { info, steps, requests } = await turnWith({
      primary: [{ toolCalls: [{ id: "c1", name: "person", arguments: '{"name":"Ana","age":30}' }] }, { error: { status: 404, message: "model not found" } }],
      anthropic: [busy(529), busy(529), busy(529)],
      openai: [{ text: "Ana is 30" }],
    });
    expect(info.lastTurn.status).toBe("completed");
    expect(steps.map((s) => s.model)).toEqual(["openai-compatible:x", "openai:gpt-4.1-mini"]);
    expect(requests.primary).toHaveLength(2);
    expect(requests.anthropic).toHaveLength(3);
    // The OpenAI fallback got the first model's call and its result as a valid history (the fake refuses invalid ones).
    expect(JSON.stringify(requests.openai[0]!.body.input)).toContain('"call_id":"c1"');
    expect(steps[1].attempts).toBe(5);
  });

  it("when every model fails the turn fails naming each, and the history stays valid", async () => {
    const { id, info, requests } = await turnWith({ primary: [busy(500), busy(500), busy(500)], anthropic: [{ error: { status: 401, message: "invalid x-api-key" } }], openai: [busy(429), busy(429), busy(429)] });
    expect(info.lastTurn.status).toBe("failed");
    expect(info.lastTurn.error).toMatch(/model openai-compatible:x failed after 3 attempts: .*busy 500; then model anthropic:claude-sonnet-4-5 failed: .*invalid x-api-key; then model openai:gpt-4.1-mini failed after 3 attempts: .*busy 429/);
    expect(requests.primary.length + requests.anthropic.length + requests.openai.length).toBe(7);
    expect((await messagesOf(id)).map((m) => m.role)).toEqual(["user"]);
  });

  it("a malformed fallback spec is an invalid_config naming the definition and the entry", async () => {
    const { checkModelList, configFailure } = await import("../../src/run/prompt.js");
    expect(() => checkModelList(configFailure('agent "x"'), "fallbackModels", ["openai"])).toThrow(/agent "x": fallbackModels\[0\] must be "<provider>:<model id>"/);
  });
});
