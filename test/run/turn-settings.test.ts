/**
 * Model settings a posted message gives its own turn (`modelSettings` in the body of
 * `POST /threads/:id/messages`), within what the agent allows (`turnSettings`): they reach side a's
 * requests of that turn in each provider's wire format (the fake provider checks every request
 * with its format's validator), never a prompt the turn calls, and not the next turn; the turn
 * keeps them; anything the agent does not allow is refused with a code and the path.
 */
import { describe, expect, it } from "vitest";
import { fakeEnv, fakeKey, fakeRequests, scriptFake } from "../fake-provider.js";
import { createThread, json, stubOf } from "../helpers.js";

/** Two turns of `tuned` on `spec`: the first posted with `settings` (agent, its prompt, agent), the second without. */
async function twoTurns(spec: string, settings: Record<string, unknown>) {
  const key = fakeKey("turn-settings");
  await scriptFake(key, [
    { toolCalls: [{ id: "call_p", name: "tuned_lookup", arguments: '{"input":"Paris"}' }] },
    { text: "Sunny." },
    { text: "It is sunny in Paris." },
    { text: "You are welcome." },
  ]);
  const id = await createThread({ agent: "tuned", env: fakeEnv(spec, key) });
  const posted = await json("POST", `/threads/${id}/messages`, { content: "Weather in Paris?", modelSettings: settings });
  expect(posted.status, JSON.stringify(posted.body)).toBe(202);
  await stubOf(id).waitIdle();
  const first = (await json("GET", `/threads/${id}`)).body.lastTurn;
  expect(first, JSON.stringify(first)).toMatchObject({ status: "completed", modelSettings: settings });
  await json("POST", `/threads/${id}/messages`, { content: "Thanks." });
  await stubOf(id).waitIdle();
  const second = (await json("GET", `/threads/${id}`)).body.lastTurn;
  expect(second).toMatchObject({ status: "completed" });
  expect(second).not.toHaveProperty("modelSettings");
  const messages = (await json("GET", `/threads/${id}/messages`)).body.messages;
  return { id, requests: (await fakeRequests(key)).map((r) => r.body), messages };
}

describe("a message's modelSettings reach its turn's side-a requests in the provider's wire format", () => {
  const settings = { temperature: 0.9, maxOutputTokens: 200, stopSequences: ["STOP"], toolChoice: "auto" };

  it("Anthropic: max_tokens, temperature, stop_sequences, tool_choice for the turn; the prompt keeps its own; the next turn is back to the agent's", async () => {
    const { requests, messages } = await twoTurns("anthropic:claude-sonnet-4-5", settings);
    const [agent, nested, after, next] = requests;
    for (const body of [agent, after]) expect(body).toMatchObject({ max_tokens: 200, temperature: 0.9, stop_sequences: ["STOP"], tool_choice: { type: "auto" } });
    // The agent's own promptCaching still applies: the message did not set it.
    expect(agent.system.at(-1).cache_control).toEqual({ type: "ephemeral" });
    // The prompt's own: its reasoning effort turns on thinking (which takes the temperature off), its own bound.
    expect(nested.thinking).toMatchObject({ type: "enabled" });
    expect(nested.max_tokens).not.toBe(200);
    expect(nested.stop_sequences).toBeUndefined();
    expect(next).toMatchObject({ max_tokens: 321, temperature: 0.2, stop_sequences: ["END"], tool_choice: { type: "any" } });
    // The message says what it asked for.
    expect(messages.find((m: { content: string }) => m.content === "Weather in Paris?").metadata).toEqual({ modelSettings: settings });
  });

  it("OpenAI Responses: temperature, max_output_tokens, tool_choice; reasoning effort on a reasoning model", async () => {
    const { requests } = await twoTurns("openai:o4-mini", { ...settings, reasoningEffort: "high" });
    const [agent, , after, next] = requests;
    for (const body of [agent, after]) {
      expect(body).toMatchObject({ max_output_tokens: 200, tool_choice: "auto", reasoning: { effort: "high" } });
    }
    expect(next).toMatchObject({ max_output_tokens: 321, tool_choice: "required" });
    expect(next.reasoning?.effort).not.toBe("high");
  });

  it("OpenAI Chat Completions: max_tokens, temperature, stop, tool_choice naming a tool", async () => {
    const { requests } = await twoTurns("openai-compatible:any", { temperature: 0.4, maxOutputTokens: 150, toolChoice: { tool: "get_weather" } });
    const [agent, , , next] = requests;
    expect(agent).toMatchObject({ max_tokens: 150, temperature: 0.4, top_p: 0.9, stop: ["END"], tool_choice: { type: "function", function: { name: "get_weather" } } });
    expect(next).toMatchObject({ max_tokens: 321, temperature: 0.2, tool_choice: "required" });
  });
});

describe("Anthropic's max_tokens is the setting's, else the model's own", () => {
  it("claude-opus-4-1 with no setting asks for its own 32000; the turn's setting replaces it", async () => {
    const key = fakeKey("anthropic-max");
    await scriptFake(key, [{ text: "One." }, { text: "Two." }]);
    const id = await createThread({ env: fakeEnv("anthropic:claude-opus-4-1", key) });
    await json("POST", `/threads/${id}/messages`, { content: "Hi" });
    await stubOf(id).waitIdle();
    const { body } = await json("POST", `/threads/${id}/messages`, { content: "Again", modelSettings: { maxOutputTokens: 500 } });
    // The default agent lets a message set nothing.
    expect(body.error).toMatchObject({ code: "invalid_request", details: { path: ["modelSettings", "maxOutputTokens"] } });
    const [first] = (await fakeRequests(key)).map((r) => r.body);
    expect(first.max_tokens).toBe(32000);
  });
});

describe("settings a message may not give are refused with a code and the path", () => {
  const refusal = async (modelSettings: unknown) => {
    const id = await createThread({ agent: "tuned" });
    const res = await json("POST", `/threads/${id}/messages`, { content: "Hi", modelSettings });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    // Nothing was stored or started.
    expect((await json("GET", `/threads/${id}`)).body).toMatchObject({ messageCount: 0, status: "idle" });
    return res.body.error;
  };

  it("a setting the agent's turnSettings does not list", async () => {
    expect(await refusal({ topP: 0.5 })).toMatchObject({ code: "invalid_request", details: { path: ["modelSettings", "topP"] }, message: expect.stringContaining('agent "tuned" does not let a message set topP') });
  });

  it("a maxOutputTokens above the agent's own", async () => {
    expect(await refusal({ maxOutputTokens: 322 })).toMatchObject({ code: "invalid_request", details: { path: ["modelSettings", "maxOutputTokens"] }, message: expect.stringContaining("321") });
  });

  it("a tool choice naming a tool side a does not offer", async () => {
    expect(await refusal({ toolChoice: { tool: "roll_dice" } })).toMatchObject({ code: "invalid_request", details: { path: ["modelSettings", "toolChoice"] } });
  });

  it("a value out of range, a wrong type, an unknown field, provider options", async () => {
    expect(await refusal({ temperature: 5 })).toMatchObject({ code: "invalid_request", details: { path: ["modelSettings", "temperature"] } });
    expect(await refusal({ stopSequences: "END" })).toMatchObject({ code: "invalid_request", details: { path: ["modelSettings", "stopSequences"] } });
    expect(await refusal({ reasoningEffort: "extreme" })).toMatchObject({ code: "invalid_request", details: { path: ["modelSettings", "reasoningEffort"] } });
    expect(await refusal({ providerOptions: { openai: { user: "x" } } })).toMatchObject({ code: "invalid_request", details: { path: ["modelSettings"] } });
    expect(await refusal("hot")).toMatchObject({ code: "invalid_request", details: { path: ["modelSettings"] } });
  });
});

describe("turnSettings is checked when the registry is built", () => {
  it("a name that is not a turn setting is refused, naming its place", async () => {
    const { checkAgentDefinition, defineAgent } = await import("../../src/run/agent.js");
    expect(() => checkAgentDefinition("a", defineAgent({ turnSettings: ["temperature", "providerOptions"] as never }))).toThrow(
      /^agent "a": turnSettings\.1: "providerOptions" is not a setting a message may give/,
    );
    expect(() => checkAgentDefinition("a", defineAgent({ turnSettings: "temperature" as never }))).toThrow(/turnSettings must be a list/);
  });
});
