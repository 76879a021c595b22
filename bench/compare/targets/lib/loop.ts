/**
 * The baselines' agent loop: the AI SDK's own (`streamText` with tools and `stopWhen`), over the
 * same three tools as weft's bench registry (bench/compare/agents/tools/) and either of two
 * models: `scripted`, in the isolate, playing weft's scripted turn (three `bench_read` calls, then
 * "done"), or `provider`, the OpenAI Responses API at the harness's fake provider (every fetch of
 * a target reaches it: its workerd's global outbound), as weft's `openai:` models are built.
 * @module
 */
import { createOpenAI } from "@ai-sdk/openai";
import type { LanguageModelV3, LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { type ModelMessage, type LanguageModel, stepCountIs, streamText, tool } from "ai";
import { z } from "zod";

/** weft's bench tools, as AI SDK tools: the same names, descriptions, schemas and results. */
export const TOOLS = {
  bench_read: tool({
    description: "Benchmark read: returns its input as JSON.",
    inputSchema: z.object({ n: z.number().int(), text: z.string().max(1000) }),
    execute: async (args) => JSON.stringify(args),
  }),
  bench_write: tool({
    description: "Benchmark write: returns its input as JSON.",
    inputSchema: z.object({ n: z.number().int(), text: z.string().max(1000) }),
    execute: async (args) => JSON.stringify(args),
  }),
  bench_burst: tool({
    description: "Benchmark fan-out: emits count burst events.",
    inputSchema: z.object({ count: z.number().int().min(1).max(5000), text: z.string().max(1000) }),
    execute: async (args) => String(args.count),
  }),
};

/** The most model calls one turn makes (weft's default step limit is higher; a turn here takes 2). */
export const MAX_STEPS = 10;

const usage = { inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 5, text: 5, reasoning: undefined } };
let calls = 0;
/** Per isolate, so call ids stay unique in a thread's stored history across restarts (made on first use: no randomness at global scope in Workers). */
let isolate = "";

/**
 * weft's scripted turn as a model: when the prompt does not end with tool results, three
 * `bench_read` calls (`{ n, text: "turn" }`); after them, the text "done".
 */
export function scriptedModel(): LanguageModelV3 {
  return {
    specificationVersion: "v3",
    provider: "bench",
    modelId: "scripted",
    supportedUrls: {},
    doGenerate: () => Promise.reject(new Error("bench: the scripted model only streams")),
    doStream: async (options) => {
      const afterTools = options.prompt.at(-1)?.role === "tool";
      const parts: LanguageModelV3StreamPart[] = [{ type: "stream-start", warnings: [] }];
      isolate ||= crypto.randomUUID().slice(0, 8);
      if (afterTools) {
        parts.push({ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: "done" }, { type: "text-end", id: "t" });
      } else {
        for (let n = 0; n < 3; n++) parts.push({ type: "tool-call", toolCallId: `call_${isolate}_${++calls}`, toolName: "bench_read", input: JSON.stringify({ n, text: "turn" }) });
      }
      parts.push({ type: "finish", finishReason: { unified: afterTools ? "stop" : "tool-calls", raw: undefined }, usage });
      return {
        stream: new ReadableStream({
          start(c) {
            for (const p of parts) c.enqueue(p);
            c.close();
          },
        }),
      };
    },
  };
}

/** The fake provider's OpenAI Responses model for the API key `key` (the fake plays that key's script). */
export function providerModel(key: string): LanguageModel {
  return createOpenAI({ apiKey: key, baseURL: "http://fake-provider.test/v1" }).responses("gpt-4.1-mini");
}

/** The model a turn asks for: `scripted`, or `provider` with the thread's key. */
export const modelFor = (kind: string, key: string): LanguageModel => (kind === "provider" ? providerModel(key) : scriptedModel());

/**
 * One turn of the AI SDK's loop over `history` (ending with the user's message): each step's new
 * messages go to `persist` as the step finishes, as a loop that keeps its history must.
 */
export async function runLoop(model: LanguageModel, history: ModelMessage[], persist: (m: ModelMessage) => void): Promise<void> {
  const result = streamText({
    model,
    messages: history,
    tools: TOOLS,
    stopWhen: stepCountIs(MAX_STEPS),
    // A step's response messages are its own (the assistant's, and the tool results).
    onStepFinish: (step) => step.response.messages.forEach(persist),
  });
  for await (const part of result.fullStream) if (part.type === "error") throw part.error;
  const finish = await result.finishReason;
  if (finish !== "stop") throw new Error(`bench loop: the turn ended with ${finish}`);
}
