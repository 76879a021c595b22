/**
 * A call announced while its arguments stream (a tool with a `progressArgument`) has its
 * `tool_call_started` and its hook then, under the id it is stored with; a call whose announcement
 * cannot be matched to it for certain (a step repeating an id, which weft stores as `<id>_2`) is
 * announced again when it runs. Review 22e: the second of two calls with one id was taken as
 * announced, so no event named it before its result and the `tool_call_started` hook never saw it.
 */
import { describe, expect, it } from "vitest";
import type { EventFrame } from "../../src/protocol.js";
import { fakeEnv, fakeKey, scriptFake } from "../fake-provider.js";
import { callsOf, createThread, eventsOf, json, stubOf } from "../helpers.js";

const started = (frames: EventFrame[]) => frames.filter((f) => f.type === "tool_call_started").map((f) => f.data as { callId: string; input: { query?: string } });

describe("calls announced while they stream", () => {
  it.each(["openai-compatible:x", "openai:gpt-4.1-mini", "anthropic:claude-sonnet-4-5"])("%s: two calls of one step with the same id: each stored call is announced with its own input before its result", async (spec) => {
    const key = fakeKey("dup-announce");
    await scriptFake(key, [
      {
        toolCalls: [
          { id: "c1", name: "search_docs", arguments: '{"query":"first query","limit":1}' },
          { id: "c1", name: "search_docs", arguments: '{"query":"second query","limit":2}' },
        ],
        chunk: 4,
        delayMs: 5,
      },
      { text: "done" },
    ]);
    const id = await createThread({ agent: "streaming", env: fakeEnv(spec, key) });
    expect((await json("POST", `/threads/${id}/messages`, { content: "go" })).status).toBe(202);
    await stubOf(id).waitIdle();
    const calls = await callsOf(id);
    expect(calls.map((c) => (c.input as { query: string }).query)).toEqual(["first query", "second query"]);
    expect(new Set(calls.map((c) => c.callId)).size).toBe(2);
    const frames = await eventsOf(id);
    for (const call of calls) {
      const announcements = started(frames).filter((s) => s.callId === call.callId);
      expect(announcements.length, call.callId).toBeGreaterThan(0);
      // The last word before it ran names its own input.
      expect(announcements.at(-1)!.input.query).toBe((call.input as { query: string }).query);
      const at = frames.findIndex((f) => f.type === "tool_call_started" && (f.data as { callId: string }).callId === call.callId);
      const done = frames.findIndex((f) => f.type === "tool_call_finished" && (f.data as { callId: string }).callId === call.callId);
      expect(at).toBeLessThan(done);
    }
  });
});
