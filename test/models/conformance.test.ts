/**
 * One conformance suite for every `Model` implementation: the scripted model, and the AI SDK
 * adapter over each provider wire format (through the fake provider servers).
 */
import { describe, expect, it } from "vitest";
import type { Model, ModelRequest, ModelStreamPart } from "../../src/models/model.js";
import { resolveModel } from "../../src/models/registry.js";
import { createScriptedModel, normalizeScript } from "../../src/models/scripted.js";
import { readStep } from "../../src/run/step.js";
import { FAKE_BASE, type FakeStep, fakeKey, scriptFake } from "../fake-provider.js";

type Maker = (steps: FakeStep[]) => Promise<Model>;

const scripted: Maker = async (steps) => {
  const queue = normalizeScript(steps.map((s) => ({ text: s.text, toolCalls: s.toolCalls })));
  return createScriptedModel({ next: () => queue.shift() });
};

const viaFake =
  (spec: string, keyEnv: string, urlEnv: string): Maker =>
  async (steps) => {
    const key = fakeKey("conformance");
    await scriptFake(key, steps);
    const values: Record<string, string> = { [keyEnv]: key, [urlEnv]: FAKE_BASE };
    return resolveModel(spec, { lookup: (n) => (values[n] ? { value: values[n], level: "thread" } : undefined), binding: () => undefined }, "test");
  };

const IMPLEMENTATIONS: Array<[string, Maker]> = [
  ["scripted", scripted],
  ["openai-compatible (Chat Completions)", viaFake("openai-compatible:any", "OPENAI_COMPATIBLE_API_KEY", "OPENAI_COMPATIBLE_BASE_URL")],
  ["openai (Responses)", viaFake("openai:gpt-4.1-mini", "OPENAI_API_KEY", "OPENAI_BASE_URL")],
  ["anthropic (Messages)", viaFake("anthropic:claude-sonnet-4-5", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL")],
];

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return deepFreeze({
    threadId: "t",
    turnId: "turn_1",
    step: 1,
    system: "Be brief.",
    messages: [{ id: 1, role: "user" as const, content: "hello", silent: false, createdAt: 0 }],
    tools: [{ name: "person", description: "Echo a person", inputSchema: { type: "object", properties: { name: { type: "string" }, age: { type: "number" } }, required: ["name", "age"] } }],
    signal: new AbortController().signal,
    ...overrides,
  });
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !(value instanceof AbortSignal)) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

async function collect(model: Model, req: ModelRequest): Promise<ModelStreamPart[]> {
  const parts: ModelStreamPart[] = [];
  for await (const part of model.stream(req)) parts.push(part);
  return parts;
}

describe.each(IMPLEMENTATIONS)("Model conformance: %s", (_name, make) => {
  it("streams text, then complete calls with byte-exact arguments, then exactly one finish", async () => {
    const args = '{"name":"\\ud83d\\ude00 x","age":1}';
    const model = await make([{ text: "Let me check.", toolCalls: [{ id: "c1", name: "person", arguments: args }], chunk: 2 }]);
    const parts = await collect(model, request());
    expect(parts.filter((p) => p.type === "finish")).toHaveLength(1);
    expect(parts.at(-1)!.type).toBe("finish");
    const step = await readStep((async function* () {
      yield* parts;
    })());
    expect(step.text).toBe("Let me check.");
    expect(step.toolCalls).toEqual([{ id: "c1", name: "person", arguments: args }]);
    expect(step.cutOff).toEqual([]);
    expect(step.finishReason).toBe("tool-calls");
    // Argument deltas concatenate to the final text.
    const deltas = parts.filter((p): p is Extract<ModelStreamPart, { type: "tool-input-delta" }> => p.type === "tool-input-delta").map((p) => p.delta).join("");
    expect(deltas).toBe(args);
  });

  it("a text-only step finishes with stop and no calls", async () => {
    const model = await make([{ text: "Hi." }]);
    const step = await readStep(model.stream(request()));
    expect(step).toMatchObject({ text: "Hi.", toolCalls: [], finishReason: "stop" });
  });

  it("never mutates the request (it is frozen here)", async () => {
    const model = await make([{ text: "ok" }]);
    await expect(readStep(model.stream(request()))).resolves.toMatchObject({ text: "ok" });
  });

  it("names itself", async () => {
    const model = await make([]);
    expect(model.id).toMatch(/^(scripted|[a-z-]+:.+)$/);
  });
});
