/**
 * Model streams that end badly, against the fake provider: a stream cut before its finish (closed
 * connection, malformed chunk, reset after partial output) is retried like any transient provider
 * failure and named `stream_cut` when retries run out; clients learn a discarded attempt's deltas
 * from `model_step_discarded`; a stream that only keeps the connection alive meets the step's idle
 * deadline, one that runs on its overall deadline (`WEFT_MODEL_IDLE_MS` and `WEFT_MODEL_STEP_MS`,
 * 1 s and 3 s for this file alone: vitest.config.ts's DEADLINE_TESTS); a call cut by the output-token limit says so to the model.
 * @module
 */
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModel } from "ai";
import { describe, expect, it } from "vitest";
import { createFakeProvider } from "../../scripts/lib/fake-provider.mjs";
import { fromLanguageModel } from "../../src/models/ai-sdk.js";
import { ModelError } from "../../src/models/model.js";
import type { EventFrame } from "../../src/protocol.js";
import { createScriptedModel, normalizeScript } from "../../src/models/scripted.js";
import { readStep } from "../../src/run/step.js";
import { withDeadlines } from "../../src/run/step-deadline.js";
import { FAKE_BASE, type FakeStep, fakeEnv, fakeKey, fakeRequests, scriptFake } from "../fake-provider.js";
import { callsOf, createThread, eventsOf, inThread, json, messagesOf, stubOf, subscribe } from "../helpers.js";

const SPECS = ["openai-compatible:x", "openai:gpt-4.1-mini", "anthropic:claude-sonnet-4-5"];

async function turnVia(spec: string, steps: FakeStep[]) {
  const key = fakeKey("ends");
  await scriptFake(key, steps);
  const id = await createThread({ agent: "streaming", env: fakeEnv(spec, key) });
  expect((await json("POST", `/threads/${id}/messages`, { content: "go" })).status).toBe(202);
  await stubOf(id).waitIdle();
  const frames = await eventsOf(id);
  const info = (await json("GET", `/threads/${id}`)).body;
  return { id, key, frames, info, requests: await fakeRequests(key), steps: of(frames, "model_step").map((f) => f.data) };
}

const of = (frames: EventFrame[], type: string) => frames.filter((f) => f.type === type) as Array<EventFrame & { data: any }>;
const assistantTexts = async (id: string) => (await messagesOf(id)).filter((m) => m.role === "assistant").map((m) => m.content);

describe("a stream cut before its finish is retried", () => {
  for (const spec of SPECS) {
    it(`${spec}: a stream that closes without its finish event is asked again; only the whole answer is kept`, async () => {
      const { id, info, requests, steps } = await turnVia(spec, [{ text: "The answer is forty", noFinish: true }, { text: "The answer is forty-two." }]);
      expect(requests).toHaveLength(2);
      expect(info.lastTurn.status).toBe("completed");
      expect(steps).toHaveLength(1);
      expect(steps[0]).toMatchObject({ text: "The answer is forty-two.", attempts: 2 });
      expect(steps[0].retries[0]).toMatch(/stream was cut/);
      expect(await assistantTexts(id)).toEqual(["The answer is forty-two."]);
    });
  }

  it("a malformed chunk cuts the stream: asked again", async () => {
    const { id, info, requests } = await turnVia("openai-compatible:x", [{ text: "abcdef", chunk: 2, malformedAfterEvents: 2 }, { text: "clean" }]);
    expect(requests).toHaveLength(2);
    expect(info.lastTurn.status).toBe("completed");
    expect(await assistantTexts(id)).toEqual(["clean"]);
  });

  for (const spec of SPECS) {
    it(`${spec}: a connection reset after partial output is retried, and never reads as "provider answered 200"`, async () => {
      const { id, info, requests, steps } = await turnVia(spec, [{ text: "partial output that never", chunk: 5, resetAfterEvents: 3 }, { text: "after the reset" }]);
      expect(requests).toHaveLength(2);
      expect(info.lastTurn.status).toBe("completed");
      expect(steps[0]).toMatchObject({ text: "after the reset", attempts: 2 });
      expect(steps[0].retries[0]).not.toMatch(/answered 200/);
      expect(await assistantTexts(id)).toEqual(["after the reset"]);
    });
  }

  it("reset every time: the turn fails with stream_cut, saying the stream was cut", async () => {
    const reset: FakeStep = { text: "partial output that never", chunk: 5, resetAfterEvents: 3 };
    const { info, requests } = await turnVia("openai:gpt-4.1-mini", [reset, reset, reset, { text: "never" }]);
    expect(requests).toHaveLength(3);
    expect(info.lastTurn).toMatchObject({ status: "failed", errorCode: "stream_cut" });
    expect(info.lastTurn.error).toMatch(/after 3 attempts: the model's stream was cut/);
    expect(info.lastTurn.error).not.toMatch(/answered 200/);
  });

  it("a call cut before its finish is not run, and the step is asked again", async () => {
    // Chat Completions: the arguments are complete JSON, but the stream stops before finish_reason.
    const { id, info, requests } = await turnVia("openai-compatible:x", [
      { toolCalls: [{ id: "c1", name: "person", arguments: '{"name":"A","age":1}' }], cutAfterEvents: 2 },
      { text: "I see." },
    ]);
    expect(requests).toHaveLength(2);
    expect(await callsOf(id)).toEqual([]);
    expect(info.lastTurn.status).toBe("completed");
    expect(await assistantTexts(id)).toEqual(["I see."]);
  });

  it("cut every time: the turn fails with stream_cut after the usual attempts, storing none of the partial text", async () => {
    const cut: FakeStep = { text: "half an ans", noFinish: true };
    const { id, info, requests, frames } = await turnVia("anthropic:claude-sonnet-4-5", [cut, cut, cut, { text: "never" }]);
    expect(requests).toHaveLength(3);
    expect(info.lastTurn).toMatchObject({ status: "failed", errorCode: "stream_cut" });
    expect(info.lastTurn.error).toMatch(/after 3 attempts: .*stream was cut/);
    expect(of(frames, "turn_finished")[0]!.data).toMatchObject({ status: "failed", errorCode: "stream_cut" });
    expect(await assistantTexts(id)).toEqual([]);
  });

  it("a cut stream whose call was announced (its hook ran) is not asked again: the call fails as cut off", async () => {
    // The query has streamed whole (and the call was announced) before the stream stops.
    const args = '{"query":"Paris","limit":3}';
    const { id, requests, info, frames } = await turnVia("openai-compatible:x", [
      { toolCalls: [{ id: "c1", name: "search_docs", arguments: args }], chunk: 4, delayMs: 15, cutAfterEvents: 7 },
      { text: "I see." },
    ]);
    expect(requests).toHaveLength(2);
    expect(of(frames, "tool_call_started").map((f) => f.data.callId)).toEqual(["c1"]);
    expect(of(frames, "model_step_discarded")).toHaveLength(0);
    const calls = await callsOf(id);
    expect(calls).toMatchObject([{ callId: "c1", status: "failed" }]);
    expect(calls[0]!.result!.error).toMatch(/arguments were cut off/);
    expect(info.lastTurn.status).toBe("completed");
  });
});

describe("a connection reset inside the provider package", () => {
  // The fake answers in this isolate, so its body fails the way a reset socket's does: the
  // provider package reads it as an error of a 200 answer ("Failed to process successful response").
  const formats: Array<[string, (fetch: typeof globalThis.fetch) => LanguageModel]> = [
    ["chat completions", (fetch) => createOpenAICompatible({ name: "c", baseURL: "http://fake.invalid/v1", apiKey: "k", fetch }).chatModel("m")],
    ["openai responses", (fetch) => createOpenAI({ apiKey: "k", baseURL: "http://fake.invalid/v1", fetch }).responses("gpt-4.1-mini")],
    ["anthropic", (fetch) => createAnthropic({ apiKey: "k", baseURL: "http://fake.invalid/v1", fetch })("claude-sonnet-4-5")],
  ];
  for (const [name, make] of formats) {
    it(`${name}: a reset after partial output is a cut stream (stream_cut, retryable), never "provider answered 200"`, async () => {
      const fake = createFakeProvider();
      fake.script("k", [{ text: "partial output that never ends", chunk: 5, resetAfterEvents: 3 }]);
      const fetch = ((input: RequestInfo | URL, init?: RequestInit) => fake.handle(new Request(input, init))) as typeof globalThis.fetch;
      const model = fromLanguageModel(make(fetch));
      const request = { threadId: "t", turnId: "turn", step: 1, messages: [{ id: 1, role: "user" as const, content: "go", createdAt: 0 }], tools: [], signal: new AbortController().signal };
      const failure = await readStep(model.stream(request as never)).then(
        () => null,
        (e: unknown) => e,
      );
      expect(failure).toBeInstanceOf(ModelError);
      expect(failure).toMatchObject({ retryable: true, code: "stream_cut" });
      expect((failure as Error).message).not.toMatch(/answered 200/);
    });
  }
});

describe("what a WebSocket client sees of a discarded attempt", () => {
  it("the partial deltas, then model_step_discarded, then the retried step: rebuilt text is the stored text", async () => {
    const key = fakeKey("ends-ws");
    const first = "Streaming a first answer that the provider will cut";
    // Paced so the thread sees the parts over more than the 100 ms window (some delta goes out)
    // even when a loaded machine reads them late: 40 ms a part was read whole under load.
    await scriptFake(key, [{ text: first, chunk: 4, delayMs: 100, resetAfterEvents: 8 }, { text: "The second answer, whole." }]);
    const id = await createThread({ agent: "streaming", env: fakeEnv("openai:gpt-4.1-mini", key) });
    const sub = await subscribe(id);
    expect((await json("POST", `/threads/${id}/messages`, { content: "go" })).status).toBe(202);
    await sub.until((frames) => frames.some((f) => f.type === "turn_finished"), 60_000);
    sub.close();
    const types = sub.frames.map((f) => f.type);
    const discarded = types.indexOf("model_step_discarded");
    expect(types.indexOf("text_delta"), types.join(",")).toBeGreaterThanOrEqual(0);
    expect(discarded).toBeGreaterThan(types.indexOf("text_delta"));
    expect(sub.frames[discarded]!.data).toMatchObject({ step: 1, attempt: 1 });
    // No message of the cut attempt was stored or sent.
    expect(sub.frames.filter((f) => f.type === "message_created").map((f: any) => f.data.message.content)).not.toContain(expect.stringContaining("Streaming a first"));
    // A client that drops a step's deltas on model_step_discarded shows the stored text once.
    const step = of(sub.frames, "model_step")[0]!;
    const kept = of(sub.frames.slice(discarded + 1), "text_delta").map((f) => f.data.delta).join("");
    expect(step.data.text).toBe("The second answer, whole.");
    expect(step.data.text.startsWith(kept)).toBe(true);
    expect(await assistantTexts(id)).toEqual(["The second answer, whole."]);
  }, 120_000);
});

// Keep-alives only, for 5 s: five times this file's idle deadline. The client gave up long before;
// the bound ends the stream on the fake's side, where inside workerd its going away never arrives.
const STALL = { afterEvents: 1, keepAliveMs: 50, forMs: 5_000 };

describe("model step deadlines", () => {
  it("a provider that sends only keep-alives meets the idle deadline and is asked again", async () => {
    const { info, requests, steps } = await turnVia("openai-compatible:x", [{ text: "thinking", stall: STALL }, { text: "awake" }]);
    expect(requests).toHaveLength(2);
    expect(info.lastTurn.status).toBe("completed");
    expect(steps[0]).toMatchObject({ text: "awake", attempts: 2 });
    expect(steps[0].retries[0]).toMatch(/WEFT_MODEL_IDLE_MS/);
  }, 120_000);

  it("keep-alives every time: the turn fails with model_timeout, and a message posted meanwhile runs after it", async () => {
    const stall: FakeStep = { stall: STALL };
    const key = fakeKey("ends-idle");
    await scriptFake(key, [stall, stall, stall, { text: "the queued message's answer" }]);
    const id = await createThread({ agent: "streaming", env: fakeEnv("anthropic:claude-sonnet-4-5", key) });
    expect((await json("POST", `/threads/${id}/messages`, { content: "first" })).status).toBe(202);
    expect((await json("POST", `/threads/${id}/messages`, { content: "second" })).status).toBe(202);
    await stubOf(id).waitIdle();
    const turns = of(await eventsOf(id), "turn_finished").map((f) => f.data);
    expect(turns[0]).toMatchObject({ status: "failed", errorCode: "model_timeout" });
    expect(turns[0].error).toMatch(/after 3 attempts: .*WEFT_MODEL_IDLE_MS/);
    expect(turns[1]).toMatchObject({ status: "completed" });
    expect(await assistantTexts(id)).toEqual(["the queued message's answer"]);
  }, 120_000);

  it("a stream that keeps sending meets the step's overall deadline and is asked again", async () => {
    // 40 chunks 100 ms apart: past this file's 3 s WEFT_MODEL_STEP_MS, never idle.
    const { info, requests, steps } = await turnVia("openai:gpt-4.1-mini", [{ text: "x".repeat(40), chunk: 1, delayMs: 100 }, { text: "in time" }]);
    expect(requests).toHaveLength(2);
    expect(info.lastTurn.status).toBe("completed");
    expect(steps[0]).toMatchObject({ text: "in time", attempts: 2 });
    expect(steps[0].retries[0]).toMatch(/WEFT_MODEL_STEP_MS/);
  }, 120_000);
});

describe("withDeadlines", () => {
  const request = (signal: AbortSignal) => ({ threadId: "t", turnId: "turn", step: 1, messages: [], tools: [], signal });

  it("the scripted model plays its steps whole under the smallest deadlines", async () => {
    const queue = normalizeScript([{ text: "one", toolCalls: [{ id: "c1", name: "person", arguments: { name: "A", age: 1 } }] }, { text: "two" }]);
    const model = createScriptedModel({ next: () => queue.shift() });
    const first = await readStep(withDeadlines((signal) => model.stream(request(signal)), new AbortController().signal, { idleMs: 1, stepMs: 1 }));
    expect(first).toMatchObject({ text: "one", finishReason: "tool-calls", toolCalls: [{ id: "c1", arguments: '{"name":"A","age":1}' }] });
    const second = await readStep(withDeadlines((signal) => model.stream(request(signal)), new AbortController().signal, { idleMs: 1, stepMs: 1 }));
    expect(second).toMatchObject({ text: "two", finishReason: "stop" });
  });

  it("a model that never answers, and ignores its signal, is left behind at the idle deadline", async () => {
    let aborted = false;
    const silent = (signal: AbortSignal) =>
      (async function* () {
        signal.addEventListener("abort", () => (aborted = true));
        await new Promise(() => undefined);
        yield { type: "finish" as const, finishReason: "stop" as const, usage: {} };
      })();
    const failure = await readStep(withDeadlines(silent, new AbortController().signal, { idleMs: 30, stepMs: 10_000 })).catch((e: unknown) => e);
    expect(failure).toMatchObject({ retryable: true, code: "model_timeout" });
    expect((failure as Error).message).toMatch(/no stream part for 30 ms.*WEFT_MODEL_IDLE_MS/);
    expect(aborted).toBe(true);
  });

  it("a stop is a stop, not a deadline", async () => {
    const stop = new AbortController();
    const waits = (signal: AbortSignal) =>
      (async function* () {
        await new Promise((_, reject) => signal.addEventListener("abort", () => reject(new DOMException("stopped", "AbortError"))));
        yield { type: "finish" as const, finishReason: "stop" as const, usage: {} };
      })();
    const pending = readStep(withDeadlines(waits, stop.signal, { idleMs: 10_000, stepMs: 10_000 })).catch((e: unknown) => e);
    stop.abort();
    const failure = await pending;
    expect(failure).not.toBeInstanceOf(ModelError);
    expect((failure as Error).name).toBe("AbortError");
  });
});

describe("the summarizing request of a step's compaction", () => {
  it("meets the idle deadline too: a stalled summarizer is asked again and the step goes on", async () => {
    const main = fakeKey("ends-main");
    const summarizer = fakeKey("ends-sum");
    await scriptFake(summarizer, [{ stall: STALL }, ...Array.from({ length: 4 }, (_, i) => ({ text: `summary v${i + 1}` }))]);
    await scriptFake(main, [{ text: "answer" }]);
    const id = await createThread({
      agent: "summarized",
      env: { ...fakeEnv("openai-compatible:x", main), ANTHROPIC_API_KEY: { value: summarizer, type: "secret" }, ANTHROPIC_BASE_URL: { value: FAKE_BASE, type: "text" } },
    });
    // Older messages than the 2000-token window holds, so the first step compacts them first.
    await inThread(id, (instance) =>
      instance.store.atomically(() => {
        for (let i = 0; i < 30; i++) instance.store.messages.append({ role: i % 2 ? "assistant" : "user", content: `chatter ${i} `.padEnd(400, ".") });
      }),
    );
    await json("POST", `/threads/${id}/messages`, { content: "what next?" });
    await stubOf(id).waitIdle();
    // The stalled request, then the summarizing passes the chatter needs.
    expect((await fakeRequests(summarizer)).length).toBeGreaterThanOrEqual(2);
    expect((await json("GET", `/threads/${id}`)).body.lastTurn).toMatchObject({ status: "completed" });
    expect(await assistantTexts(id)).toContain("answer");
    expect(of(await eventsOf(id), "history_compacted")).toHaveLength(1);
  }, 120_000);
});

describe("a call cut by the output-token limit", () => {
  for (const spec of SPECS) {
    it(`${spec}: the model is told its output limit cut the call, with the raw text kept`, async () => {
      const partial = '{"name":"Alexandra","ag';
      const { id, info } = await turnVia(spec, [{ toolCalls: [{ id: "c1", name: "person", arguments: partial }], finishReason: "length" }, { text: "I see." }]);
      const calls = await callsOf(id);
      expect(calls).toMatchObject([{ callId: "c1", status: "failed" }]);
      const error = calls[0]!.result!.error!;
      expect(error).toMatch(/output-token limit/);
      expect(error).not.toMatch(/not valid JSON/);
      expect(error).toContain(partial);
      const result = (await messagesOf(id)).find((m) => m.role === "tool" && m.toolCallId === "c1");
      expect(result?.content).toMatch(/output-token limit/);
      expect(info.lastTurn.status).toBe("completed");
    });
  }
});
