/**
 * The scripted model's parts for a step given in pieces (`chunks`, `chunkDelayMs`): one text
 * delta a piece, paced, ending promptly when the request's signal fires; the stored step keeps
 * the text once, so pieces count toward the 1 MiB bound of a step by their lengths only.
 */
import { describe, expect, it } from "vitest";
import type { ModelRequest, ModelStreamPart } from "../../src/models/model.js";
import { createScriptedModel, MAX_STEP_BYTES, normalizeScript } from "../../src/models/scripted.js";

function request(signal = new AbortController().signal): ModelRequest {
  return { threadId: "t", turnId: "turn_1", step: 1, messages: [], tools: [], signal };
}

/** The parts of the first step of `script`, each with the milliseconds since the stream began. */
async function play(script: unknown[], signal?: AbortSignal): Promise<Array<[ModelStreamPart, number]>> {
  const queue = normalizeScript(script);
  const model = createScriptedModel({ next: () => queue.shift() });
  const start = Date.now();
  const parts: Array<[ModelStreamPart, number]> = [];
  for await (const part of model.stream(request(signal))) parts.push([part, Date.now() - start]);
  return parts;
}

describe("scripted steps in pieces", () => {
  it("streams each piece as its own text delta, at once without a pace", async () => {
    const parts = await play([{ chunks: ["Hel", "lo, ", "", "world"] }]);
    expect(parts.map(([p]) => p)).toEqual([
      { type: "text-delta", delta: "Hel" },
      { type: "text-delta", delta: "lo, " },
      { type: "text-delta", delta: "world" },
      { type: "finish", finishReason: "stop", usage: {} },
    ]);
  });

  it("waits chunkDelayMs after each piece, then sends an empty delta so the wait shows as time passed", async () => {
    const parts = await play([{ chunks: ["a ", "b "], chunkDelayMs: 40, toolCalls: [{ id: "c1", name: "t", arguments: {} }] }]);
    expect(parts.map(([p]) => p)).toEqual([
      { type: "text-delta", delta: "a " },
      { type: "text-delta", delta: "" },
      { type: "text-delta", delta: "b " },
      { type: "text-delta", delta: "" },
      { type: "tool-input-start", id: "c1", toolName: "t" },
      { type: "tool-input-delta", id: "c1", delta: "{}" },
      { type: "tool-call", id: "c1", toolName: "t", input: "{}" },
      { type: "finish", finishReason: "tool-calls", usage: {} },
    ]);
    // Timers may fire a little early; 2 waits of 40 ms took most of 80 ms.
    expect(parts.at(-1)![1]).toBeGreaterThanOrEqual(70);
  });

  it("ends within milliseconds when the request's signal fires during a wait, throwing the signal's reason", async () => {
    const stop = new AbortController();
    const started = Date.now();
    setTimeout(() => stop.abort(new Error("stopped")), 30);
    await expect(play([{ chunks: ["a ", "b ", "c "], chunkDelayMs: 10_000 }], stop.signal)).rejects.toThrow("stopped");
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("stores the text once with the pieces' lengths, which count toward the step's byte bound", () => {
    expect(normalizeScript([{ chunks: ["Hel", "lo"], chunkDelayMs: 5 }])).toEqual([{ text: "Hello", toolCalls: [], chunkLengths: [3, 2], chunkDelayMs: 5 }]);
    expect(normalizeScript([{ text: "Hello" }])).toEqual([{ text: "Hello", toolCalls: [] }]);
    // One-character pieces: the text fits a step on its own, not with a length per character.
    const text = "x".repeat(MAX_STEP_BYTES / 2);
    expect(() => normalizeScript([{ text }])).not.toThrow();
    expect(() => normalizeScript([{ chunks: [...text] }])).toThrow(expect.objectContaining({ code: "payload_too_large", details: { path: ["script", 0] } }));
  });
});
