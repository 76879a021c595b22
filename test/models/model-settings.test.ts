/**
 * Model settings (`modelSettings` on an agent's inline side or a prompt) reach the provider in its
 * own wire format: each case runs a real turn against the fake provider and reads the request it
 * received. A prompt called as a tool sends its own settings, not its caller's.
 */
import { describe, expect, it } from "vitest";
import { fakeEnv, fakeKey, fakeRequests, scriptFake } from "../fake-provider.js";
import { createThread, json, stubOf } from "../helpers.js";

/** One turn of `tuned` on `spec`: the agent calls its prompt, the prompt answers, the agent answers. */
async function requestsOf(spec: string): Promise<any[]> {
  return (await exchangesOf(spec)).map((r) => r.body);
}

async function exchangesOf(spec: string): Promise<Array<{ path: string; body: any }>> {
  const key = fakeKey("settings");
  await scriptFake(key, [
    { toolCalls: [{ id: "call_p", name: "tuned_lookup", arguments: '{"input":"Paris"}' }] },
    { text: "Sunny." },
    { text: "It is sunny in Paris." },
  ]);
  const id = await createThread({ agent: "tuned", env: fakeEnv(spec, key) });
  await json("POST", `/threads/${id}/messages`, { content: "Weather in Paris?" });
  await stubOf(id).waitIdle();
  const thread = (await json("GET", `/threads/${id}`)).body;
  expect(thread.lastTurn, JSON.stringify(thread.lastTurn)).toMatchObject({ status: "completed" });
  return fakeRequests(key);
}

describe("modelSettings reach the provider in its wire format", () => {
  it("OpenAI Responses: sampling, output bound, tool choice and provider options; a prompt's own settings in its nested run", async () => {
    const [agent, nested, after] = await requestsOf("openai:gpt-4.1-mini");
    for (const body of [agent, after]) {
      expect(body).toMatchObject({ temperature: 0.2, top_p: 0.9, max_output_tokens: 321, tool_choice: "required", user: "weft-settings-test" });
    }
    expect(nested).toMatchObject({ temperature: 0.7, max_output_tokens: 99, tool_choice: { type: "function", name: "get_weather" } });
    // The caller's settings stay with the caller.
    expect(nested).not.toHaveProperty("top_p");
    expect(nested).not.toHaveProperty("user");
  });

  it("OpenAI Responses, a reasoning model: the prompt's reasoning effort", async () => {
    const [, nested] = await requestsOf("openai:o4-mini");
    expect(nested.reasoning).toMatchObject({ effort: "low" });
  });

  it("Anthropic: max_tokens, temperature, stop sequences, tool choice, and cache breakpoints on the system prompt and the newest message", async () => {
    const [agent, nested, after] = await requestsOf("anthropic:claude-sonnet-4-5");
    for (const body of [agent, after]) {
      expect(body).toMatchObject({ max_tokens: 321, temperature: 0.2, stop_sequences: ["END"], tool_choice: { type: "any" } });
      expect(body.system.at(-1).cache_control).toEqual({ type: "ephemeral" });
      expect(body.messages.at(-1).content.at(-1).cache_control).toEqual({ type: "ephemeral" });
      // Only the two breakpoints: the messages before the newest are not marked.
      expect(JSON.stringify(body.messages.slice(0, -1))).not.toContain("cache_control");
    }
    // The prompt's reasoning effort turns on thinking; it asked for no caching.
    expect(nested.thinking).toMatchObject({ type: "enabled" });
    expect(JSON.stringify(nested)).not.toContain("cache_control");
  });

  it("OpenAI Chat Completions by name (openai-chat): OpenAI's key and base URL, the chat wire, the same settings", async () => {
    const exchanges = await exchangesOf("openai-chat:gpt-4.1-mini");
    expect(exchanges.map((e) => e.path)).toEqual(["/v1/chat/completions", "/v1/chat/completions", "/v1/chat/completions"]);
    const [agent, nested] = exchanges.map((e) => e.body);
    expect(agent).toMatchObject({ model: "gpt-4.1-mini", temperature: 0.2, top_p: 0.9, stop: ["END"], tool_choice: "required", user: "weft-settings-test" });
    expect(agent.max_tokens ?? agent.max_completion_tokens).toBe(321);
    expect(nested).toMatchObject({ temperature: 0.7, tool_choice: { type: "function", function: { name: "get_weather" } } });
  });

  it("OpenAI Chat Completions (a compatible server): max_tokens, temperature, top_p, stop, tool_choice, reasoning_effort", async () => {
    const [agent, nested] = await requestsOf("openai-compatible:any");
    expect(agent).toMatchObject({ max_tokens: 321, temperature: 0.2, top_p: 0.9, stop: ["END"], tool_choice: "required" });
    expect(nested).toMatchObject({ max_tokens: 99, temperature: 0.7, reasoning_effort: "low", tool_choice: { type: "function", function: { name: "get_weather" } } });
  });
});

describe("modelSettings are checked when the registry is built", () => {
  it("a value out of range or an unknown field is refused, naming its path", async () => {
    const { checkPromptDefinition, definePrompt } = await import("../../src/run/prompt.js");
    const { checkAgentDefinition, defineAgent } = await import("../../src/run/agent.js");
    const refusal = (f: () => void) => {
      try {
        f();
      } catch (e) {
        return e as { code: string; message: string };
      }
      throw new Error("not refused");
    };
    expect(refusal(() => checkPromptDefinition("p", definePrompt({ toolDescription: "d", modelSettings: { temperature: 3 } })))).toMatchObject({
      code: "invalid_config",
      message: expect.stringMatching(/^prompt "p": modelSettings\.temperature: .*2/),
    });
    expect(refusal(() => checkPromptDefinition("p", definePrompt({ toolDescription: "d", modelSettings: { temprature: 1 } as never }))).message).toMatch(
      /^prompt "p": modelSettings: .*temprature/,
    );
    expect(refusal(() => checkAgentDefinition("a", defineAgent({ modelSettings: { toolChoice: { tool: "" } } }))).message).toMatch(/^agent "a": modelSettings\.toolChoice/);
    expect(refusal(() => checkAgentDefinition("a", defineAgent({ sideA: "p", modelSettings: { temperature: 1 } }))).message).toContain("modelSettings and outputSchema belong to side a's prompt");
  });

  it("a tool choice that names a tool its side does not offer is a reference problem", async () => {
    const { checkReferences } = await import("../../src/run/references.js");
    const problems = checkReferences({
      tools: ["get_weather", "roll_dice"],
      toolsWhere: "tools/",
      prompts: { p: { kind: "prompt", toolDescription: "d", tools: ["get_weather"], modelSettings: { toolChoice: { tool: "roll_dice" } } } },
      agents: { a: { kind: "agent", modelSettings: { toolChoice: { tool: "nope" } } }, ok: { kind: "agent", modelSettings: { toolChoice: { tool: "roll_dice" } } } },
    } as never);
    expect(problems.map((p) => p.message)).toEqual([
      'agent "a": modelSettings.toolChoice names "nope", which its tools do not offer',
      'prompt "p": modelSettings.toolChoice names "roll_dice", which its tools do not offer',
    ]);
  });
});

describe("openai: at a base URL of its own speaks the Responses API, and a 404 there says how to reach Chat Completions", () => {
  it("a server without /responses fails the turn naming openai-chat", async () => {
    const key = fakeKey("responses-404");
    await scriptFake(key, [{ error: { status: 404, message: "Not Found" } }]);
    const id = await createThread({ env: fakeEnv("openai:gpt-4.1-mini", key) });
    await json("POST", `/threads/${id}/messages`, { content: "Hi" });
    await stubOf(id).waitIdle();
    const turn = (await json("GET", `/threads/${id}`)).body.lastTurn;
    expect(turn).toMatchObject({ status: "failed", error: expect.stringContaining("a server that speaks only Chat Completions is reached as openai-chat:gpt-4.1-mini") });
    expect((await fakeRequests(key)).map((r) => r.path)).toEqual(["/v1/responses"]);
  });
});
