/**
 * A stop that cuts a reconcilable call's work mid-flight (a request sent, a child thread at work)
 * may find nothing by its lookup of an effect still on its way: the call parks for a person, never
 * "nothing happened" (the effect table's "stopped while running"). Found by a hostile review: both
 * cases below were recorded aborted with "lookup confirms nothing happened", and the effect then
 * happened. A prompt called as a tool, whose work inside is stopped with it, is still aborted
 * (test/calls/stop.test.ts).
 */
import { describe, expect, it } from "vitest";
import { callsOf, createThread, effectRuns, eventsOf, json, stubOf, until } from "../helpers.js";

describe("a stop while a reconcilable call's effect may still land", () => {
  it("a request in flight: the call parks, and the effect that lands is there to settle it by", async () => {
    const id = await createThread({ agent: "in_flight" });
    await json("POST", `/threads/${id}/messages`, { content: "go", script: [{ toolCalls: [{ id: "c1", name: "reconcile_in_flight", arguments: { ms: 1500 } }] }, { text: "done" }] });
    await until(async () => (await callsOf(id)).find((c) => c.callId === "c1")?.status === "started", "the call to start");
    expect((await json("POST", `/threads/${id}/stop`)).body).toEqual({ stopped: true });
    await stubOf(id).waitIdle();
    const record = (await callsOf(id)).find((c) => c.callId === "c1")!;
    expect(record.status).toBe("parked");
    expect(record.parkReason).toContain("the request the stop cut may still land");
    // The request that was in flight lands.
    await until(async () => (await effectRuns(id, "c1")).runs === 1, "the effect to land", 10_000);
  });

  it("an agent called as a tool whose child still waits for a person: parked, not aborted", async () => {
    const id = await createThread({ agent: "careful_delegator" });
    await json("POST", `/threads/${id}/messages`, {
      content: "research",
      script: [{ toolCalls: [{ id: "c1", name: "careful_researcher", arguments: { input: "what?" } }] }, { text: "done" }],
    });
    await until(async () => (await callsOf(id)).find((c) => c.callId === "c1")?.status === "parked", "the agent call to suspend");
    const child = ((await eventsOf(id)).find((e) => e.type === "subagent_started")!.data as { childThreadId: string }).childThreadId;
    expect((await callsOf(child)).find((c) => c.callId === "c_pay")?.status).toBe("awaiting_approval");

    expect((await json("POST", `/threads/${id}/stop`)).body).toEqual({ stopped: true });
    await stubOf(id).waitIdle();
    const parent = (await callsOf(id)).find((c) => c.callId === "c1")!;
    expect(parent.status).toBe("parked");
    // The child can still act: its write runs once approved, and the parent's call waits for a person to settle it.
    expect((await json("POST", `/threads/${child}/calls/c_pay/approve`, {})).status).toBe(200);
    await stubOf(child).waitIdle();
    expect((await callsOf(child)).find((c) => c.callId === "c_pay")?.status).toBe("succeeded");
  });
});
