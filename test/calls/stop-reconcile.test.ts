/**
 * A stop that cuts a reconcilable call's work mid-flight may find nothing by its lookup of an
 * effect still on its way (a request sent): the call parks for a person, never "nothing happened"
 * (the effect table's "stopped while running"). An agent called as a tool has its child thread
 * stopped with the parent's turn, and the call ends as the child did. Found by a hostile review:
 * both were recorded aborted with "lookup confirms nothing happened", and the request landed, or
 * the child went on and ran its write once a person approved it. A prompt called as a tool, whose
 * work inside is stopped with it, is still aborted (test/calls/stop.test.ts).
 */
import { describe, expect, it } from "vitest";
import { callsOf, createThread, effectRuns, json, stubOf, until } from "../helpers.js";
import { delegatedAndWaiting } from "../run/delegation.js";


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

  it("an agent called as a tool: the parent's stop stops its child too, whose waiting write never runs", async () => {
    const { id, child } = await delegatedAndWaiting();
    expect((await callsOf(child)).find((c) => c.callId === "c_pay")?.status).toBe("awaiting_approval");

    expect((await json("POST", `/threads/${id}/stop`)).body).toEqual({ stopped: true });
    await stubOf(id).waitIdle();
    const parent = (await callsOf(id)).find((c) => c.callId === "c1")!;
    expect(parent).toMatchObject({ status: "failed" });
    expect(parent.result?.error).toMatch(/^agent "careful_researcher" was stopped with its parent's turn; its answer so far: /);
    // The child's turn ended stopped: its write, waiting for a person, never runs.
    expect((await json("GET", `/threads/${child}`)).body.lastTurn.status).toBe("stopped");
    expect((await callsOf(child)).find((c) => c.callId === "c_pay")?.status).toBe("aborted");
    expect((await json("POST", `/threads/${child}/calls/c_pay/approve`, {})).body.error.code).toBe("call_not_waiting");
  });

  it("an agent called as a tool whose child cannot be reached at the stop: parked, never 'nothing happened'", async () => {
    const { id, child } = await delegatedAndWaiting();
    // Out of reach (here removed by its owner; a failed RPC alike): whatever it did cannot be asked.
    expect((await json("DELETE", `/threads/${child}`)).status).toBe(200);
    expect((await json("POST", `/threads/${id}/stop`)).body).toEqual({ stopped: true });
    await stubOf(id).waitIdle();
    expect((await callsOf(id)).find((c) => c.callId === "c1")).toMatchObject({ status: "parked" });
  });

  it("an agent call whose child has a turn queued behind the stopped one never takes that turn's answer as its own", async () => {
    const { id, child } = await delegatedAndWaiting();
    // The child's owner posts to it meanwhile: queued behind its waiting turn (review 22e: the stop
    // waited for the child with `wait`, which ran this turn, and recorded its answer as the call's success).
    expect((await json("POST", `/threads/${child}/messages`, { content: "something else", script: [{ text: "ANSWER OF ANOTHER TURN" }] })).status).toBe(202);
    expect((await json("POST", `/threads/${id}/stop`)).body).toEqual({ stopped: true });
    await stubOf(id).waitIdle();
    const parent = (await callsOf(id)).find((c) => c.callId === "c1")!;
    // Stopped as far as it got, or (the queued turn having begun) not known: parked. Never the other turn's answer.
    expect(["failed", "parked"]).toContain(parent.status);
    expect(JSON.stringify(parent.result ?? null)).not.toContain("ANSWER OF ANOTHER TURN");
    expect((await callsOf(child)).find((c) => c.callId === "c_pay")?.status).toBe("aborted");
  });
});

