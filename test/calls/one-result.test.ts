/**
 * Exactly one result per call: a second result for a call that already has one is neither written
 * nor emitted, and the crash harness's count of calls without exactly one result can fail.
 */
import { describe, expect, it } from "vitest";
import { finishCall } from "../../src/calls/record.js";
import { callsWithoutOneResult, crashAt, settleParked, waitAtRest } from "../crash/matrix.js";
import { callsOf, createThread, eventsOf, inThread, json, stubOf } from "../helpers.js";

const finishedEvents = async (threadId: string, callId: string) =>
  (await eventsOf(threadId)).filter((e) => e.type === "tool_call_finished" && (e.data as { callId: string }).callId === callId);

describe("one result per call", () => {
  it("a late second result (a step closed while the call ran) leaves the first one and emits nothing", async () => {
    const id = await createThread({ agent: "guarantees" });
    await json("POST", `/threads/${id}/messages`, { content: "go", script: [{ toolCalls: [{ id: "r", name: "effect_read", arguments: {} }] }, { text: "done" }] });
    await stubOf(id).waitIdle();
    expect(await finishedEvents(id, "r")).toHaveLength(1);
    const late = await inThread(id, (instance) =>
      finishCall(
        instance.world.calls.contextOf(null),
        { request: { callId: "r", toolName: "effect_read", args: { text: "{}" }, source: "model" }, startedAt: Date.now() },
        { status: "error", error: "aborted: late" },
        "aborted",
        1,
      ),
    );
    expect(late).toMatchObject({ callId: "r", status: "succeeded", final: true, isError: false });
    expect((await callsOf(id)).find((c) => c.callId === "r")).toMatchObject({ status: "succeeded" });
    expect(await finishedEvents(id, "r")).toHaveLength(1);
    expect(await callsWithoutOneResult(id)).toEqual([]);
  });

  it("the harness counts a parked call until a person settles it", async () => {
    const id = await createThread({ agent: "guarantees" });
    await crashAt(id, "w", "after_effect");
    await json("POST", `/threads/${id}/messages`, { content: "go", script: [{ toolCalls: [{ id: "w", name: "effect_write", arguments: {} }] }, { text: "done" }] }).catch(
      () => undefined,
    );
    // The thread's own alarm recovers the write, which parks (a write never runs twice).
    for (let i = 0; i < 300 && (await callsOf(id).catch(() => [])).find((c) => c.callId === "w")?.status !== "parked"; i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(await callsWithoutOneResult(id)).toEqual(["w: 0 results, parked"]);
    expect(await settleParked(id)).toBe(1);
    expect(await waitAtRest(id)).toBeNull();
    expect(await callsWithoutOneResult(id)).toEqual([]);
  });
});
