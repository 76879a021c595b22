/**
 * Stop is a transition every state of a turn honours: streaming a model step, running calls,
 * waiting for approval, holding a parked (suspended) call, or holding queued calls. Each ends the
 * turn `stopped` (never a model or provider failure), gives every open call its final result
 * (`aborted` for a call that never ran, the effect table's outcome for one that did), answers a
 * later decision 409 without running anything, and leaves the thread taking messages at once.
 */
import { describe, expect, it } from "vitest";
import { fakeEnv, fakeKey, fakeRequests, scriptFake } from "../fake-provider.js";
import { callsOf, createThread, eventsOf, json, effectRuns, messagesOf, stubOf, until } from "../helpers.js";

const call = (id: string, name: string, args: Record<string, unknown> = {}) => ({ id, name, arguments: args });
const statusOf = async (id: string, callId: string) => (await callsOf(id)).find((c) => c.callId === callId)?.status;

/** Posts a message whose turn plays `script`; answers 202. */
async function post(id: string, script: unknown[]) {
  expect((await json("POST", `/threads/${id}/messages`, { content: "go", script })).status).toBe(202);
}

/** Stops the thread, then checks what holds after any stop: the turn ended stopped, with no failure. */
async function stopTurn(id: string) {
  expect((await json("POST", `/threads/${id}/stop`)).body).toEqual({ stopped: true });
  await stubOf(id).waitIdle();
  const info = (await json("GET", `/threads/${id}`)).body;
  expect(info.status).toBe("idle");
  expect(info.lastTurn.status).toBe("stopped");
  expect(info.lastTurn.errorCode).toBeUndefined();
  const finished = (await eventsOf(id)).filter((e) => e.type === "turn_finished").map((e) => e.data as { status: string; errorCode?: string });
  expect(finished).toEqual([expect.objectContaining({ status: "stopped" })]);
  expect(finished[0]!.errorCode).toBeUndefined();
}

/**
 * Every call of the thread has exactly one tool_call_finished, and the conversation's history
 * (depth 0: what the next model request reads) answers every call once.
 */
async function expectOneResultEach(id: string) {
  const events = await eventsOf(id);
  for (const c of await callsOf(id)) {
    expect(events.filter((e) => e.type === "tool_call_finished" && (e.data as { callId: string }).callId === c.callId), c.callId).toHaveLength(1);
  }
  const messages = (await json("GET", `/threads/${id}/messages?limit=1000&includeSilent=true&maxDepth=0`)).body.messages as Array<{ role: string; toolCallId?: string; toolCalls?: Array<{ id: string }> }>;
  const asked = messages.flatMap((m) => m.toolCalls?.map((c) => c.id) ?? []).sort();
  expect(messages.filter((m) => m.role === "tool").map((m) => m.toolCallId).sort()).toEqual(asked);
}

/** A decision on `callId` after the stop answers 409 and runs nothing. */
async function expectDecisionRefused(id: string, callId: string) {
  for (const verb of ["approve", "deny"]) {
    const res = await json("POST", `/threads/${id}/calls/${callId}/${verb}`, {});
    expect(res.status, `${verb} ${callId}`).toBe(409);
    expect(res.body.error.code).toBe("call_not_waiting");
  }
  expect((await effectRuns(id, callId)).runs).toBe(0);
}

/** The stopped thread takes a new message at once: a turn starts (not queued) and completes (`scripted`: the step comes with the message). */
async function expectTakesMessages(id: string, scripted = true) {
  const posted = await json("POST", `/threads/${id}/messages`, { content: "again", ...(scripted ? { script: [{ text: "again done" }] } : {}) });
  expect(posted).toMatchObject({ status: 202, body: { queued: false } });
  await stubOf(id).waitIdle();
  expect((await messagesOf(id)).at(-1)!.content).toBe("again done");
  expect((await json("GET", `/threads/${id}`)).body.lastTurn.status).toBe("completed");
}

describe("stop ends a turn in every state", () => {
  it("streaming a model step: stopped, not a provider failure, and the step is not requested again", async () => {
    const key = fakeKey("stop-stream");
    await scriptFake(key, [{ text: "this answer never finishes", stall: { afterEvents: 2, keepAliveMs: 50, forMs: 10_000 } }]);
    const id = await createThread({ agent: "streaming", env: fakeEnv("openai:gpt-4.1-mini", key) });
    await post(id, []);
    await until(async () => (await fakeRequests(key)).length === 1, "the model request to start");
    await stopTurn(id);
    expect(await fakeRequests(key)).toHaveLength(1);
    const events = await eventsOf(id);
    expect(events.filter((e) => e.type === "model_step")).toEqual([]);
    expect(events.filter((e) => e.type === "model_retry" || e.type === "model_fallback")).toEqual([]);
    await scriptFake(key, [{ text: "again done" }]);
    await expectTakesMessages(id, false);
  });

  it("running calls: the running read is aborted, the call that never ran is aborted, nothing runs after", async () => {
    const id = await createThread({ agent: "stoppable" });
    await post(id, [{ toolCalls: [call("r", "slow_read", { ms: 30_000 }), call("w", "record_call")] }]);
    await until(async () => (await statusOf(id, "r")) === "started", "the read to run");
    await stopTurn(id);
    const calls = Object.fromEntries((await callsOf(id)).map((c) => [c.callId, c]));
    expect(calls.r).toMatchObject({ status: "aborted" });
    expect(calls.w).toMatchObject({ status: "aborted", attempts: 0 });
    expect((await effectRuns(id, "w")).runs).toBe(0);
    await expectOneResultEach(id);
    await expectDecisionRefused(id, "w");
    await expectTakesMessages(id);
  });

  it("waiting for approval: the waiting call is aborted, a later approval answers 409 and runs nothing", async () => {
    const id = await createThread({ agent: "stoppable" });
    await post(id, [{ toolCalls: [call("pay", "needs_ok", { amount: 500 }), call("e", "effect_read")] }]);
    await until(async () => (await json("GET", `/threads/${id}`)).body.status === "waiting", "the turn to wait");
    await stopTurn(id);
    const calls = Object.fromEntries((await callsOf(id)).map((c) => [c.callId, c]));
    expect(calls.pay).toMatchObject({ status: "aborted", attempts: 0 });
    expect(calls.pay!.result!.error).toMatch(/^aborted: /);
    expect(calls.e).toMatchObject({ status: "succeeded" });
    await expectOneResultEach(id);
    await expectDecisionRefused(id, "pay");
    await expectTakesMessages(id);
  });

  it("waiting for approval inside invokeTool: the nested call is aborted, its running parent ends by the effect table", async () => {
    const id = await createThread({ agent: "stoppable" });
    await post(id, [{ toolCalls: [call("d", "delegate", { mode: "invoke", tool: "needs_ok", args: { amount: 500 } })] }]);
    await until(async () => (await statusOf(id, "d.invoke1")) === "awaiting_approval", "the nested call to wait");
    await stopTurn(id);
    const calls = Object.fromEntries((await callsOf(id)).map((c) => [c.callId, c]));
    expect(calls["d.invoke1"]).toMatchObject({ status: "aborted", attempts: 0 });
    // delegate is a read: stopped while it ran, it is aborted.
    expect(calls.d).toMatchObject({ status: "aborted" });
    await expectOneResultEach(id);
    await expectDecisionRefused(id, "d.invoke1");
    await expectTakesMessages(id);
  });

  it("holding a parked call: a prompt call suspended on an approval inside it ends by the effect table, the inner call is aborted", async () => {
    const id = await createThread({ agent: "payer" });
    await post(id, [{ toolCalls: [call("p1", "payout", { input: "pay 500" })] }, { toolCalls: [call("n_pay", "needs_ok", { amount: 500 })] }]);
    await until(async () => (await json("GET", `/threads/${id}`)).body.status === "waiting", "the turn to wait");
    expect(await statusOf(id, "p1")).toBe("parked");
    await stopTurn(id);
    const calls = Object.fromEntries((await callsOf(id)).map((c) => [c.callId, c]));
    expect(calls.n_pay).toMatchObject({ status: "aborted", attempts: 0 });
    // A prompt call is reconcilable: stopped after it ran, its lookup finds no final answer, so it is aborted.
    expect(calls.p1).toMatchObject({ status: "aborted" });
    await expectOneResultEach(id);
    await expectDecisionRefused(id, "n_pay");
    await expectTakesMessages(id);
  });

  it("holding queued calls: a queued call that never ran and a queued call waiting for approval are aborted", async () => {
    const id = await createThread({ agent: "stoppable" });
    await post(id, [{ toolCalls: [call("d", "delegate", { mode: "queue", tool: "needs_ok", args: { amount: 500 } }), call("q", "queue_then_wait")] }]);
    await until(async () => (await statusOf(id, "q")) === "started" && (await statusOf(id, "q.queue1")) === "queued", "the queued call to wait behind its parent");
    expect(await statusOf(id, "d.queue1")).toBe("awaiting_approval");
    await stopTurn(id);
    const calls = Object.fromEntries((await callsOf(id)).map((c) => [c.callId, c]));
    expect(calls["q.queue1"]).toMatchObject({ status: "aborted", attempts: 0 });
    expect(calls["d.queue1"]).toMatchObject({ status: "aborted", attempts: 0 });
    expect((await effectRuns(id, "q.queue1")).runs).toBe(0);
    await expectOneResultEach(id);
    await expectDecisionRefused(id, "d.queue1");
    await expectTakesMessages(id);
  });
});
