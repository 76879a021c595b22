import { describe, expect, it } from "vitest";
import type { EventFrame } from "../../src/protocol.js";
import { type FakeStep, fakeEnv, fakeKey, fakeRequests, scriptFake } from "../fake-provider.js";
import { callsOf, createThread, eventsOf, json, stubOf } from "../helpers.js";

async function turnVia(spec: string, steps: FakeStep[]) {
  const key = fakeKey("stream");
  await scriptFake(key, steps);
  const id = await createThread({ agent: "streaming", env: fakeEnv(spec, key) });
  expect((await json("POST", `/threads/${id}/messages`, { content: "go" })).status).toBe(202);
  await stubOf(id).waitIdle();
  return { id, key, frames: await eventsOf(id), calls: await callsOf(id) };
}

/**
 * The pause between the parts of a slow stream. Fewer delta events than parts holds at any pace
 * (the window opens with the first part); some delta at all needs the thread to see the parts over
 * more than the 100 ms window, which a machine too loaded to read for that long can squeeze out of
 * a short stream: at 12-15 ms a part (about 250 ms in all) a loaded run read one whole.
 */
const PACE_MS = 60;

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const of = <T extends string>(frames: EventFrame[], type: T) => frames.filter((f) => f.type === type) as Array<EventFrame & { data: any }>;

describe("streamed model steps", () => {
  it("coalesces argument deltas, announces a progressArgument call as soon as it streamed, and runs it once", async () => {
    const args = '{"query":"weather in Paris","limit":3}';
    const { frames, calls } = await turnVia("openai-compatible:x", [
      { toolCalls: [{ id: "c1", name: "search_docs", arguments: args }], chunk: 2, delayMs: PACE_MS },
      { text: "Found it." },
    ]);
    const started = of(frames, "tool_call_started");
    expect(started).toHaveLength(1);
    expect(started[0]!.data).toMatchObject({ callId: "c1", progress: "weather in Paris" });
    const step = of(frames, "model_step")[0]!;
    // Announced while the arguments were still streaming: before the step was complete.
    expect(started[0]!.seq).toBeLessThan(step.seq);
    const deltas = of(frames, "tool_call_delta");
    expect(deltas.length).toBeGreaterThan(0);
    expect(deltas.length).toBeLessThan(Math.ceil(args.length / 2));
    expect(args.startsWith(deltas.map((d) => d.data.delta).join(""))).toBe(true);
    expect(calls).toMatchObject([{ callId: "c1", status: "succeeded", result: { result: JSON.stringify({ query: "weather in Paris", limit: 3 }) } }]);
  });

  it("previews never break inside a \\u escape or a surrogate pair; final arguments are byte-exact", async () => {
    const args = '{"query":"\\ud83d\\ude00 caf\\u00e9 \u{1F600}\u{1F600}\\n\\"q\\"","limit":1}';
    const { frames, calls } = await turnVia("anthropic:claude-sonnet-4-5", [
      { toolCalls: [{ id: "c1", name: "search_docs", arguments: args }], chunk: 3, delayMs: PACE_MS },
      { text: "ok" },
    ]);
    const finalQuery = JSON.parse(args).query as string;
    const previews = of(frames, "tool_call_delta").map((d) => d.data.preview?.query).filter((q) => q !== undefined);
    expect(previews.length).toBeGreaterThan(0);
    for (const q of previews) {
      expect(LONE_SURROGATE.test(q)).toBe(false);
      expect(finalQuery.startsWith(q)).toBe(true);
    }
    for (const d of of(frames, "tool_call_delta")) expect(LONE_SURROGATE.test(d.data.delta)).toBe(false);
    const step = of(frames, "model_step")[0]!;
    expect(step.data.toolCalls[0].arguments).toBe(args);
    expect(calls[0]).toMatchObject({ status: "succeeded" });
  });

  it("streams text deltas for a slow step; a step that arrives at once sends none", async () => {
    const text = "The answer is forty-two, as computed carefully.";
    const { frames } = await turnVia("openai:gpt-4.1-mini", [{ text, chunk: 3, delayMs: PACE_MS }]);
    const deltas = of(frames, "text_delta");
    expect(deltas.length).toBeGreaterThan(0);
    expect(deltas.length).toBeLessThan(text.length / 3);
    expect(text.startsWith(deltas.map((d) => d.data.delta).join(""))).toBe(true);
    const fast = await turnVia("openai:gpt-4.1-mini", [{ text }]);
    expect(of(fast.frames, "text_delta")).toHaveLength(0);
  });

  it("never runs a call whose stream ended early, even when its partial text parses: the step is asked again", async () => {
    // Chat Completions: the arguments are complete JSON, but the stream stops before finish_reason.
    const { calls, frames, id, key } = await turnVia("openai-compatible:x", [
      { toolCalls: [{ id: "c1", name: "person", arguments: '{"name":"A","age":1}' }], cutAfterEvents: 2 },
      { text: "I see." },
    ]);
    expect(of(frames, "tool_call_started"), JSON.stringify(frames.map((f) => [f.type, f.data]))).toHaveLength(0);
    expect(calls).toEqual([]);
    expect(await fakeRequests(key)).toHaveLength(2);
    expect(of(frames, "model_step").map((f) => f.data.text)).toEqual(["I see."]);
    expect((await json("GET", `/threads/${id}`)).body.lastTurn.status).toBe("completed");
  });

  for (const spec of ["anthropic:claude-sonnet-4-5", "openai:gpt-4.1-mini"]) {
    it(`${spec}: a call cut inside its arguments never runs; the step is asked again`, async () => {
      const { calls, id, key } = await turnVia(spec, [
        { toolCalls: [{ id: "c1", name: "person", arguments: '{"name":"Alexandra","age":41}' }], chunk: 4, cutAfterEvents: 5 },
        { text: "I see." },
      ]);
      expect(calls).toEqual([]);
      expect(await fakeRequests(key)).toHaveLength(2);
      expect((await json("GET", `/threads/${id}`)).body.lastTurn.status).toBe("completed");
    });
  }

  it("a trailing empty-arguments chunk for the same index does not make a second call", async () => {
    const { calls, key } = await turnVia("openai-compatible:x", [
      { toolCalls: [{ id: "c1", name: "person", arguments: '{"name":"A","age":1}' }, { id: "c2", name: "person", arguments: '{"name":"B","age":2}' }], chunk: 5, trailingEmptyArgs: true },
      { text: "done" },
    ]);
    expect(calls.map((c) => c.callId)).toEqual(["c1", "c2"]);
    const second = (await fakeRequests(key))[1]!.body;
    const assistant = second.messages.find((m: any) => m.role === "assistant");
    expect(assistant.tool_calls.map((c: any) => c.id)).toEqual(["c1", "c2"]);
    expect(second.messages.filter((m: any) => m.role === "tool").map((m: any) => m.tool_call_id)).toEqual(["c1", "c2"]);
  });
});

describe("strict schemas", () => {
  it("OpenAI gets the strict variant, and null for an optional key reaches execute as absent (defaults apply)", async () => {
    const { calls, key } = await turnVia("openai:gpt-4.1-mini", [
      { toolCalls: [{ id: "c1", name: "search_docs", arguments: '{"query":"x","limit":null,"tag":null}' }] },
      { text: "done" },
    ]);
    expect(JSON.parse(calls[0]!.result!.result!)).toEqual({ query: "x", limit: 10 });
    const tool = (await fakeRequests(key))[0]!.body.tools.find((t: any) => t.name === "search_docs");
    expect(tool.strict).toBe(true);
    expect(tool.parameters).toMatchObject({
      type: "object",
      required: ["query", "limit", "tag"],
      additionalProperties: false,
      properties: { query: { type: "string" }, limit: { type: ["number", "null"] }, tag: { type: ["string", "null"] } },
    });
    expect(tool.parameters.properties.limit.default).toBeUndefined();
    expect(tool.parameters.properties.limit.description).toContain("default: 10");
  });

  it("a tool taking a free-form object (a record) goes to OpenAI as written, without strict, and its keys reach execute", async () => {
    const { calls, key } = await turnVia("openai:gpt-4.1-mini", [
      { toolCalls: [{ id: "c1", name: "label_items", arguments: '{"labels":{"a-1":"red","b-2":"blue"}}' }] },
      { text: "done" },
    ]);
    expect(JSON.parse(calls[0]!.result!.result!)).toEqual({ labels: { "a-1": "red", "b-2": "blue" } });
    const tools = (await fakeRequests(key))[0]!.body.tools;
    const tool = tools.find((t: any) => t.name === "label_items");
    expect(tool.strict).not.toBe(true);
    expect(tool.parameters.properties.labels).toMatchObject({ type: "object", additionalProperties: { type: "string" } });
    expect(tool.parameters.required).toEqual(["labels"]);
    // The other tools of the same request stay strict.
    expect(tools.find((t: any) => t.name === "search_docs").strict).toBe(true);
  });
});

describe("secrets in streamed steps", () => {
  it("never send a secret the model streams, even split across deltas; deltas stay a prefix of the step's text", async () => {
    const secret = "sk-stream-4b7f2a9e61d0";
    const text = `Here it is: ${secret} and again ${secret}, done.`;
    const key = fakeKey("stream-secret");
    // Each chunk arrives after the coalescing window, so each is its own delta: the secret is split.
    await scriptFake(key, [{ text, chunk: 4, delayMs: 110 }]);
    const id = await createThread({ agent: "streaming", env: { ...fakeEnv("openai:gpt-4.1-mini", key), LEAKY: { value: secret, type: "secret" } } });
    expect((await json("POST", `/threads/${id}/messages`, { content: "go" })).status).toBe(202);
    await stubOf(id).waitIdle();
    const frames = await eventsOf(id);
    const deltas = of(frames, "text_delta");
    expect(deltas.length).toBeGreaterThan(1);
    for (const f of frames) expect(JSON.stringify(f)).not.toContain(secret);
    const joined = deltas.map((d) => d.data.delta).join("");
    expect(joined).not.toContain(secret);
    const step = of(frames, "model_step")[0]!;
    expect(step.data.text).toBe("Here it is: [redacted] and again [redacted], done.");
    expect(step.data.text.startsWith(joined)).toBe(true);
  });

  it("an early announcement carries finished arguments only, never the start of a secret still streaming", async () => {
    const secret = "sk-stream-4b7f2a9e61d0";
    const args = `{"query":"weather","tag":"${secret}"}`;
    const key = fakeKey("announce-secret");
    // The first piece finishes `query` (the progress argument) and starts `tag` with "sk-s".
    await scriptFake(key, [{ toolCalls: [{ id: "c1", name: "search_docs", arguments: args }], chunk: 30, delayMs: 15 }, { text: "ok" }]);
    const id = await createThread({ agent: "streaming", env: { ...fakeEnv("openai-compatible:x", key), LEAKY: { value: secret, type: "secret" } } });
    expect((await json("POST", `/threads/${id}/messages`, { content: "go" })).status).toBe(202);
    await stubOf(id).waitIdle();
    const frames = await eventsOf(id);
    const started = of(frames, "tool_call_started");
    expect(started).toHaveLength(1);
    expect(started[0]!.data).toMatchObject({ progress: "weather" });
    expect(started[0]!.data.input).toEqual({ query: "weather" });
    // No frame shows the secret's start (the whole secret is redacted where it appears).
    for (const f of frames) expect(JSON.stringify(f.data)).not.toContain(secret.slice(0, 6));
  });
});
