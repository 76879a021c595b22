/**
 * A write that runs on a person's decision (an approval, or a retry of a parked call) runs often
 * long after its thread's watchdog alarm last fired, in a Durable Object started afresh. If a
 * crash cuts it while it runs, the thread's own alarm finishes it (parks the write: its outcome is
 * unknown) with no client request, as it does for any other cut write.
 */
import { evictDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { callsWithoutOneResult, settleParked, waitAtRest, waitForAlarm } from "../crash/matrix.js";
import { firedCrashes, planCrashes } from "../crash/plan.js";
import { callsOf, createThread, inThread, json, effectRuns, rawStub, stubOf, until } from "../helpers.js";

const owner = { userId: "tester", name: "tester", roles: [], admin: false };

/** Waits until the thread has no alarm set (its watchdog fired and found nothing to do), then evicts it. */
async function quiet(threadId: string): Promise<void> {
  await until(async () => (await inThread(threadId, (t) => t.ctx.storage.getAlarm())) === null, "the watchdog alarm to stop");
  await evictDurableObject(rawStub(threadId));
}

/** Approves `callId` straight at the object (the RPC dies with it), then waits for the alarm alone. */
async function approveAndCrash(threadId: string, callId: string): Promise<void> {
  planCrashes(threadId, [{ point: "inside_execute", callId }]);
  await stubOf(threadId).approve(owner, callId).catch(() => undefined);
  expect(firedCrashes(threadId)).toEqual([`inside_execute:${callId}`]);
  // No request reaches the thread until its alarm has run.
  expect(await waitForAlarm(threadId, 3000)).toBe(true);
}

describe("a write cut by a crash while it runs after its approval", () => {
  it("a direct call's: the thread's alarm parks it with no client request", async () => {
    const id = await createThread({ agent: "guarantees" });
    const waiting = await json("POST", "/v1/tools/needs_ok", { input: { amount: 500 }, sessionId: id });
    expect(waiting.status).toBe(202);
    const callId = waiting.body.callId as string;
    await quiet(id);
    await approveAndCrash(id, callId);
    expect(await waitAtRest(id)).toBeNull();
    expect((await callsOf(id)).find((c) => c.callId === callId)).toMatchObject({ status: "parked", approvedBy: "tester" });
    expect(await settleParked(id)).toBe(1);
    expect(await callsWithoutOneResult(id)).toEqual([]);
    expect((await effectRuns(id, callId)).runs).toBe(1);
  });

  it("a model call's, in a turn waiting for the approval: the alarm parks it and the turn goes on", async () => {
    const id = await createThread({ agent: "guarantees" });
    await json("POST", `/threads/${id}/messages`, {
      content: "pay",
      script: [{ toolCalls: [{ id: "pay", name: "needs_ok", arguments: { amount: 500 } }] }, { text: "all done" }],
    });
    await stubOf(id).waitIdle();
    expect((await json("GET", `/threads/${id}`)).body.status).toBe("waiting");
    await quiet(id);
    await approveAndCrash(id, "pay");
    expect(await settleParked(id)).toBe(1);
    expect(await waitAtRest(id)).toBeNull();
    expect(await callsWithoutOneResult(id)).toEqual([]);
    expect((await effectRuns(id, "pay")).runs).toBe(1);
  });

  it("a parked write a person retries: the alarm parks it again", async () => {
    const id = await createThread({ agent: "guarantees" });
    planCrashes(id, [{ point: "inside_execute", callId: "c" }]);
    await stubOf(id).callTool(owner, { toolName: "effect_write", input: {}, callId: "c" }).catch(() => undefined);
    expect(await waitForAlarm(id, 3000)).toBe(true);
    expect(await waitAtRest(id)).toBeNull();
    expect((await callsOf(id)).find((c) => c.callId === "c")?.status).toBe("parked");
    await quiet(id);
    planCrashes(id, [{ point: "inside_execute", callId: "c" }]);
    await stubOf(id).settle(owner, "c", { outcome: "retry" }).catch(() => undefined);
    expect(firedCrashes(id)).toEqual(["inside_execute:c", "inside_execute:c"]);
    expect(await waitForAlarm(id, 3000)).toBe(true);
    expect(await waitAtRest(id)).toBeNull();
    expect(await settleParked(id)).toBe(1);
    expect(await callsWithoutOneResult(id)).toEqual([]);
    // Once, then once more because the person asked for it.
    expect((await effectRuns(id, "c")).runs).toBe(2);
  });
});
