import { evictDurableObject, runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { callsOf, createThread, eventsOf, inThread, json, effectRuns, messagesOf, rawStub, stubOf } from "../helpers.js";

async function startWaiting() {
  const id = await createThread({ agent: "guarantees" });
  await json("POST", `/threads/${id}/messages`, {
    content: "pay",
    script: [
      {
        toolCalls: [
          { id: "auto", name: "record_call", arguments: { note: "automatic" } },
          { id: "pay", name: "needs_ok", arguments: { amount: 500 } },
        ],
      },
      { text: "all done" },
    ],
  });
  await stubOf(id).waitIdle();
  return id;
}

describe("needsApproval", () => {
  it("holds the call durably across an eviction; approval runs it exactly once and records approvedBy", async () => {
    const id = await startWaiting();
    const before = await callsOf(id);
    expect(before.map((c) => `${c.callId}:${c.status}`)).toEqual(["auto:succeeded", "pay:awaiting_approval"]);
    expect((await json("GET", `/threads/${id}`)).body.status).toBe("waiting");
    expect((await messagesOf(id)).map((m) => m.role)).toEqual(["user", "assistant"]); // no results yet

    await evictDurableObject(rawStub(id));
    // A body field naming someone else is ignored: the verified caller is who approved.
    const approved = await json("POST", `/threads/${id}/calls/pay/approve`, { approvedBy: "alice" });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ callId: "pay", status: "succeeded" });
    expect(JSON.parse(approved.body.result.result)).toMatchObject({ approvedBy: "tester" });
    await stubOf(id).waitIdle();

    const after = await callsOf(id);
    expect(after.find((c) => c.callId === "pay")).toMatchObject({ status: "succeeded", approvedBy: "tester", attempts: 1 });
    expect((await effectRuns(id, "pay")).runs).toBe(1);
    // The automatic call kept its result and did not run again.
    expect(await inThread(id, (i) => i.store.kv.get("count:auto"))).toBe(1);
    // The next model request carries both results, in call order, then the turn went on.
    const messages = await messagesOf(id);
    expect(messages.map((m) => `${m.role}:${m.toolCallId ?? ""}`)).toEqual(["user:", "assistant:", "tool:auto", "tool:pay", "assistant:"]);
    expect(messages.at(-1)!.content).toBe("all done");
    // The same person approving again (a retry that lost the answer, or one cut by a restart) is
    // answered as the call stands: it does not run again, and the turn hears nothing twice.
    const again = await json("POST", `/threads/${id}/calls/pay/approve`, { approvedBy: "mallory" });
    expect(again).toMatchObject({ status: 200, body: { callId: "pay", status: "succeeded", result: approved.body.result } });
    await stubOf(id).waitIdle();
    expect((await effectRuns(id, "pay")).runs).toBe(1);
    expect((await messagesOf(id)).length).toBe(messages.length);
    // A denial of it now is not that decision.
    expect((await json("POST", `/threads/${id}/calls/pay/deny`, {})).body.error.code).toBe("call_not_waiting");
    expect((await effectRuns(id, "pay")).runs).toBe(1);
  });

  it("a denial becomes a result the model sees, and execute never runs", async () => {
    const id = await startWaiting();
    const denied = await json("POST", `/threads/${id}/calls/pay/deny`, { reason: "too much" });
    expect(denied.body).toMatchObject({ status: "denied", result: { status: "error", error: "denied by tester: too much" } });
    await stubOf(id).waitIdle();
    const tool = (await messagesOf(id)).find((m) => m.toolCallId === "pay");
    expect(tool!.content).toBe("denied by tester: too much");
    expect((await callsOf(id)).find((c) => c.callId === "pay")).toMatchObject({ status: "denied", decidedBy: "tester" });
    expect((await effectRuns(id, "pay")).runs).toBe(0);
    const events = await eventsOf(id);
    expect(events.map((e) => e.type)).toContain("tool_call_approval_requested");
    expect(events.filter((e) => e.type === "turn_finished").map((e) => (e.data as { status: string }).status)).toEqual(["completed"]);
    // Denied again by the same person for the same reason: the denied call, and no second result or event.
    const again = await json("POST", `/threads/${id}/calls/pay/deny`, { reason: "too much" });
    expect(again).toMatchObject({ status: 200, body: { status: "denied", repeated: true, result: { error: "denied by tester: too much" } } });
    await stubOf(id).waitIdle();
    expect((await eventsOf(id)).length).toBe(events.length);
    // For another reason it is another decision, which the call does not wait for.
    expect((await json("POST", `/threads/${id}/calls/pay/deny`, { reason: "wrong recipient" })).body.error.code).toBe("call_not_waiting");
    expect((await json("POST", `/threads/${id}/calls/pay/approve`, {})).body.error.code).toBe("call_not_waiting");
  });

  it("binds approval to the arguments' hash and refuses a mismatch", async () => {
    const id = await startWaiting();
    const call = (await callsOf(id)).find((c) => c.callId === "pay")!;
    expect(call.argsHash).toMatch(/^[0-9a-f]{64}$/);
    const wrong = await json("POST", `/threads/${id}/calls/pay/approve`, { argsHash: "0".repeat(64) });
    expect(wrong.status).toBe(409);
    expect(wrong.body.error.code).toBe("approval_mismatch");
    const right = await json("POST", `/threads/${id}/calls/pay/approve`, { argsHash: call.argsHash });
    expect(right.body.status).toBe("succeeded");
  });

  it("asks the predicate: a small amount runs without approval", async () => {
    const id = await createThread({ agent: "guarantees" });
    await json("POST", `/threads/${id}/messages`, { content: "pay", script: [{ toolCalls: [{ id: "small", name: "needs_ok", arguments: { amount: 5 } }] }] });
    await stubOf(id).waitIdle();
    expect((await callsOf(id))[0]).toMatchObject({ status: "succeeded" });
  });

  it("queues messages posted while a turn waits, and direct writes get session_busy", async () => {
    const id = await startWaiting();
    const posted = await json("POST", `/threads/${id}/messages`, { content: "hello?", script: [{ text: "later" }] });
    expect(posted.body.queued).toBe(true);
    const write = await json("POST", "/v1/tools/record_call", { input: {}, sessionId: id });
    expect(write.body.error.code).toBe("session_busy");
    await json("POST", `/threads/${id}/calls/pay/approve`, {});
    await stubOf(id).waitIdle();
    const roles = (await messagesOf(id)).map((m) => `${m.role}:${m.content}`);
    expect(roles.slice(-3)).toEqual(["assistant:all done", "user:hello?", "assistant:later"]);
  });
});

describe("a thread whose only unfinished work waits for a person", () => {
  it("says waiting, not idle, while a direct call in it awaits approval, and idle once it is decided", async () => {
    const id = await createThread({ agent: "guarantees" });
    const call = await json("POST", "/v1/tools/needs_ok", { input: { amount: 500 }, sessionId: id });
    expect([call.status, call.body.status]).toEqual([202, "awaiting_approval"]);
    const info = (await json("GET", `/threads/${id}`)).body;
    expect([info.status, info.lastTurn]).toEqual(["waiting", undefined]); // no turn: the call alone waits
    expect((await json("POST", `/threads/${id}/calls/${call.body.callId}/deny`, { reason: "no" })).status).toBe(200);
    expect((await json("GET", `/threads/${id}`)).body.status).toBe("idle");
  });
});

describe("a waiting turn and the watchdog alarm", () => {
  it("stays quietly waiting when the alarm fires before anyone decides", async () => {
    const id = await startWaiting();
    const before = (await eventsOf(id)).length;
    await runDurableObjectAlarm(rawStub(id));
    await stubOf(id).waitIdle();
    const events = await eventsOf(id);
    expect(events.length).toBe(before);
    expect((await json("GET", `/threads/${id}`)).body.status).toBe("waiting");
  });
});
