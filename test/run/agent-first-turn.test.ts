/**
 * An agent called as a tool answers with its child's first turn, the one the call's opening
 * started. The child's owner may post a turn of their own behind it; that turn's answer is not the
 * call's, and a parent's stop neither stops it nor quotes it (review 22g: the call took the child's
 * newest turn as its own).
 */
import { describe, expect, it } from "vitest";
import { callsOf, eventsOf, json, stubOf, until } from "../helpers.js";
import { delegatedAndWaiting } from "./delegation.js";

const OWN_ANSWER = "Bought the source; the answer is 42.";


const parentCall = async (id: string) => (await callsOf(id)).find((c) => c.callId === "c1")!;

describe("an agent called as a tool answers with its child's first turn", () => {
  it("a turn the child's owner queued behind it does not answer the call", async () => {
    const { id, child } = await delegatedAndWaiting();
    expect((await json("POST", `/threads/${child}/messages`, { content: "something else", script: [{ text: "ANSWER OF ANOTHER TURN" }] })).status).toBe(202);
    expect((await json("POST", `/threads/${child}/calls/c_pay/approve`, {})).status).toBe(200);
    await until(async () => !["parked", "started"].includes((await parentCall(id)).status), "the agent call to end", 10_000);
    const call = await parentCall(id);
    expect(call).toMatchObject({ status: "succeeded", result: { status: "success", result: OWN_ANSWER } });
    // The owner's turn ran in the child as its own.
    await until(async () => JSON.stringify(await eventsOf(child)).includes("ANSWER OF ANOTHER TURN"), "the owner's turn to answer", 10_000);
  });

  it("a stop landing as the call goes on after its child's first turn completed: that turn answers it, and the owner's waiting turn is left alone", async () => {
    const { id, child } = await delegatedAndWaiting();
    // The owner queues a turn behind the waiting one: it says something, then waits for approval itself.
    const other = { content: "something else", script: [{ text: "ANSWER OF ANOTHER TURN", toolCalls: [{ id: "c_other", name: "needs_ok", arguments: { amount: 700 } }] }, { text: "other done" }] };
    expect((await json("POST", `/threads/${child}/messages`, other)).status).toBe(202);
    // The child's first turn completes; the parent's call goes on, and the stop comes as it does (it
    // was recorded "aborted: stopped before this call ran", the child's write having run).
    expect((await json("POST", `/threads/${child}/calls/c_pay/approve`, {})).status).toBe(200);
    await until(async () => (await callsOf(child)).find((c) => c.callId === "c_other")?.status === "awaiting_approval", "the other turn to wait", 10_000);

    await json("POST", `/threads/${id}/stop`);
    await stubOf(id).waitIdle();
    const call = await parentCall(id);
    expect(JSON.stringify(call.result ?? null)).not.toContain("ANSWER OF ANOTHER TURN");
    expect(call).toMatchObject({ status: "succeeded", result: { status: "success", result: OWN_ANSWER } });
    // The owner's turn still waits for its person.
    expect((await callsOf(child)).find((c) => c.callId === "c_other")?.status).toBe("awaiting_approval");
  });

  it("at the parent's stop, a first turn still waiting is stopped and its answer so far quoted", async () => {
    const { id, child } = await delegatedAndWaiting();
    expect((await json("POST", `/threads/${id}/stop`)).body).toEqual({ stopped: true });
    await stubOf(id).waitIdle();
    const call = await parentCall(id);
    expect(call.status).toBe("failed");
    expect(call.result?.error).toContain("was stopped with its parent's turn");
    expect((await callsOf(child)).find((c) => c.callId === "c_pay")?.status).not.toBe("awaiting_approval");
  });
});
