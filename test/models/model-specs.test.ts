import { describe, expect, it } from "vitest";
import { fakeEnv, fakeKey, fakeRequests, scriptFake } from "../fake-provider.js";
import { callsOf, createThread, eventsOf, json, messagesOf, stubOf } from "../helpers.js";

/** Creates a faults-agent thread on `spec` against the fake, runs one turn, returns what it left. */
async function turnVia(spec: string, steps: Parameters<typeof scriptFake>[1], content = "go") {
  const key = fakeKey(spec.split(":")[0]!);
  await scriptFake(key, steps);
  const id = await createThread({ agent: "faults", env: fakeEnv(spec, key) });
  const posted = await json("POST", `/threads/${id}/messages`, { content });
  expect(posted.status).toBe(202);
  await stubOf(id).waitIdle();
  const info = (await json("GET", `/threads/${id}`)).body;
  return { id, key, info, calls: await callsOf(id), messages: await messagesOf(id), requests: await fakeRequests(key) };
}

const ARGS_A = '{"name":"Ada \\u00e9\\ud83d\\ude00","age":36}';
const ARGS_B = '{"name": "Bo",  "age": 7}';

describe("models over the AI SDK against fake provider servers", () => {
  for (const spec of ["openai-compatible:fake-chat", "openai:gpt-4.1-mini", "anthropic:claude-sonnet-4-5"]) {
    it(`${spec}: streamed parallel calls run once each with byte-exact arguments, then the text ends the turn`, async () => {
      const { info, calls, messages, requests } = await turnVia(spec, [
        { toolCalls: [{ id: "call_a", name: "person", arguments: ARGS_A }, { id: "call_b", name: "person", arguments: ARGS_B }], chunk: 3, trailingEmptyArgs: true },
        { text: "Both are recorded.", chunk: 4 },
      ]);
      expect(info.lastTurn).toMatchObject({ status: "completed", steps: 2 });
      expect(calls.map((c) => [c.callId, c.status, c.result?.result])).toEqual([
        ["call_a", "succeeded", JSON.stringify({ name: "Ada é😀", age: 36 })],
        ["call_b", "succeeded", JSON.stringify({ name: "Bo", age: 7 })],
      ]);
      const assistant = messages.find((m) => m.role === "assistant" && (m as any).toolCalls) as any;
      expect(assistant.toolCalls.map((c: any) => c.arguments)).toEqual([ARGS_A, ARGS_B]);
      expect(messages.at(-1)).toMatchObject({ role: "assistant", content: "Both are recorded." });
      // The second request carried both results, answered in call order.
      expect(requests).toHaveLength(2);
      const second = JSON.stringify(requests[1]!.body);
      expect(second.indexOf("call_a")).toBeGreaterThan(-1);
      expect(second.indexOf("call_a")).toBeLessThan(second.indexOf("call_b"));
    });
  }

  it("a provider error ends the turn failed with the provider's message", async () => {
    const { info } = await turnVia("openai-compatible:fake-chat", [{ error: { status: 400, message: "model fake-chat does not exist" } }]);
    expect(info.lastTurn.status).toBe("failed");
    expect(info.lastTurn.error).toContain("model fake-chat does not exist");
  });

  it("a model that cannot be made (a binding missing) fails the turn with errorCode invalid_config, so an operator can tell a config mistake from a provider's", async () => {
    const id = await createThread({ agent: "faults", env: { WEFT_MODEL: "workers-ai:@cf/meta/llama-3.1-8b-instruct" } });
    await json("POST", `/threads/${id}/messages`, { content: "go" });
    await stubOf(id).waitIdle();
    const turn = (await json("GET", `/threads/${id}`)).body.lastTurn;
    expect(turn).toMatchObject({ status: "failed", errorCode: "invalid_config", error: expect.stringContaining("needs the Worker binding AI") });
    const finished = (await eventsOf(id)).find((e) => e.type === "turn_finished");
    expect(finished?.data).toMatchObject({ status: "failed", errorCode: "invalid_config" });
  });

  it("refuses an unknown provider or model id when the thread is created", async () => {
    const unknownProvider = await json("POST", "/threads", { agent: "faults", env: { WEFT_MODEL: "nope:x" } });
    expect(unknownProvider.status).toBe(400);
    expect(unknownProvider.body.error.message).toContain('unknown model provider "nope"');
    const unknownModel = await json("POST", "/threads", { agent: "faults", env: { WEFT_MODEL: "openai:gpt-4.1-mimi" } });
    expect(unknownModel.status).toBe(400);
    expect(unknownModel.body.error.message).toMatch(/unknown openai model "gpt-4.1-mimi".*gpt-4.1-mini/);
    // A misspelt id in an agent or prompt file fails the build (test/scripts/build-registry.node.test.ts).
  });

  it("never sends the Worker's key to a base URL the thread chose", async () => {
    const res = await json("POST", "/threads", {
      agent: "faults",
      env: { WEFT_MODEL: "openai-compatible:x", OPENAI_COMPATIBLE_BASE_URL: "http://evil.test/v1" },
    });
    // No key anywhere: allowed (nothing to leak); the Worker-key cases run in test/secrets/credentials-per-level.test.ts.
    expect(res.status).toBe(201);
  });

  it("with no model configured, the scripted model plays as before", async () => {
    const id = await createThread({ agent: "faults" });
    await json("POST", `/threads/${id}/messages`, { content: "hi", script: [{ text: "scripted answer" }] });
    await stubOf(id).waitIdle();
    expect((await messagesOf(id)).at(-1)).toMatchObject({ role: "assistant", content: "scripted answer" });
    expect((await eventsOf(id)).some((f) => f.type === "turn_finished")).toBe(true);
  });
});

describe("scripts and real models", () => {
  it("refuses a posted script when the thread talks to a real model", async () => {
    const id = await createThread({ agent: "faults", env: fakeEnv("openai-compatible:x", fakeKey("s")) });
    const res = await json("POST", `/threads/${id}/messages`, { content: "hi", script: [{ text: "x" }] });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: "invalid_request", details: { path: ["script"] } });
    expect(res.body.error.message).toContain("env WEFT_MODEL");
  });
});

describe("model registry", () => {
  /** A ModelEnv holding `values`, each set at the level `levels` names (default: the Worker's). */
  const env = (values: Record<string, string>, levels: Record<string, string> = {}) => ({
    lookup: (n: string) => (values[n] ? { value: values[n], level: levels[n] ?? "worker" } : undefined),
    binding: () => undefined,
  });

  it("sends a key only to a base URL set at the key's own level", async () => {
    const { resolveModel } = await import("../../src/models/registry.js");
    const values = { OPENAI_API_KEY: "worker-secret", OPENAI_BASE_URL: "http://elsewhere.test/v1" };
    for (const level of ["thread", "agent", "prompt", "user"]) {
      expect(() => resolveModel("openai:gpt-4.1-mini", env(values, { OPENAI_BASE_URL: level }), "env WEFT_MODEL")).toThrow(
        `env WEFT_MODEL: OPENAI_BASE_URL comes from the ${level} level and OPENAI_API_KEY from the worker level; a key is only sent to a base URL set at its own level`,
      );
      // A user's key goes to no endpoint but one set beside it, the Worker's included.
      expect(() => resolveModel("openai:gpt-4.1-mini", env(values, { OPENAI_API_KEY: level }), "x")).toThrow(/OPENAI_BASE_URL comes from the worker level and OPENAI_API_KEY from the/);
      expect(resolveModel("openai:gpt-4.1-mini", env(values, { OPENAI_BASE_URL: level, OPENAI_API_KEY: level }), "x").id).toBe("openai:gpt-4.1-mini");
    }
    expect(resolveModel("openai:gpt-4.1-mini", env(values), "x").strictTools).toBe(true);
    // No base URL anywhere: the key, from any level, goes to the provider's own endpoint; a base URL with no key anywhere gets none.
    expect(resolveModel("anthropic:claude-sonnet-4-5", env({ ANTHROPIC_API_KEY: "k" }, { ANTHROPIC_API_KEY: "thread" }), "x").id).toBe("anthropic:claude-sonnet-4-5");
    expect(resolveModel("anthropic:claude-sonnet-4-5", env({ ANTHROPIC_BASE_URL: "http://local.test" }, { ANTHROPIC_BASE_URL: "user" }), "x").id).toBe("anthropic:claude-sonnet-4-5");
  });

  it("needs a base URL for openai-compatible and the AI binding for workers-ai", async () => {
    const { resolveModel } = await import("../../src/models/registry.js");
    expect(() => resolveModel("openai-compatible:m", env({}), "agents/agents/a.ts")).toThrow(/agents\/agents\/a.ts: openai-compatible needs the env value OPENAI_COMPATIBLE_BASE_URL/);
    expect(() => resolveModel("workers-ai:@cf/meta/llama-3.1-8b-instruct", env({}), "w")).toThrow(/needs the Worker binding AI/);
    const withBinding = { lookup: () => undefined, binding: () => ({ run: async () => ({}) }) };
    expect(resolveModel("workers-ai:@cf/meta/llama-3.1-8b-instruct", withBinding, "w").id).toBe("workers-ai:@cf/meta/llama-3.1-8b-instruct");
  });
});
