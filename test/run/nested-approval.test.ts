/**
 * A call that waits for a person inside `invokeTool` or `queueTool` holds its parent: the turn
 * waits, durably (across a real restart), and whatever the person decides reaches the model.
 */
import { evictDurableObject, runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { callsOf, createThread, eventsOf, inThread, json, effectRuns, messagesOf, rawStub, stubOf, until } from "../helpers.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const statusOf = async (id: string, callId: string) => (await callsOf(id)).find((c) => c.callId === callId)?.status;

/** Starts a turn whose one call delegates (`mode`) a transfer that needs approval. */
async function delegating(mode: "invoke" | "queue"): Promise<string> {
  const id = await createThread({ agent: "guarantees" });
  const posted = await json("POST", `/threads/${id}/messages`, {
    content: "transfer 500",
    script: [{ toolCalls: [{ id: "d", name: "delegate", arguments: { mode, tool: "needs_ok", args: { amount: 500 } } }] }, { text: "done" }],
  });
  expect(posted.status).toBe(202);
  await until(async () => (await statusOf(id, `d.${mode}1`)) === "awaiting_approval", "the nested call to wait");
  return id;
}

/** The history is valid and the model heard the decision: `d`'s (or the queued call's) result says it. */
async function expectDecisionReachedModel(id: string, resultCallId: string, text: RegExp) {
  await until(async () => {
    await stubOf(id).waitIdle();
    return (await messagesOf(id)).at(-1)?.content === "done";
  }, "the turn to finish");
  const messages = await messagesOf(id);
  const result = messages.find((m) => m.role === "tool" && m.toolCallId === resultCallId);
  expect(result?.content).toMatch(text);
  // Every call of the history answered once.
  const asked = messages.flatMap((m) => ((m as { toolCalls?: Array<{ id: string }> }).toolCalls ?? []).map((c) => c.id)).sort();
  expect(messages.filter((m) => m.role === "tool").map((m) => m.toolCallId).sort()).toEqual(asked);
  const events = await eventsOf(id);
  for (const call of await callsOf(id)) {
    expect(events.filter((e) => e.type === "tool_call_finished" && (e.data as { callId: string }).callId === call.callId), call.callId).toHaveLength(1);
  }
}

describe("12. a nested call waiting for a person holds its parent", () => {
  it("invokeTool: the parent waits for the approval, and its result carries the transfer to the model", async () => {
    const id = await delegating("invoke");
    expect(await statusOf(id, "d")).toBe("started");
    expect((await json("GET", `/threads/${id}`)).body.status).not.toBe("idle");
    const waiting = (await eventsOf(id)).filter((e) => e.type === "turn_waiting").map((e) => (e.data as { callIds: string[] }).callIds);
    expect(waiting).toContainEqual(["d.invoke1"]);
    expect((await json("POST", `/threads/${id}/calls/d.invoke1/approve`, {})).status).toBe(200);
    await expectDecisionReachedModel(id, "d", /invoked needs_ok: .*"status":"success".*approvedBy/);
    expect((await effectRuns(id, "d.invoke1")).runs).toBe(1);
    expect((await callsOf(id)).map((c) => `${c.callId}:${c.status}`).sort()).toEqual(["d.invoke1:succeeded", "d:succeeded"]);
  });

  // A real restart (`ctx.abort()`); an eviction waits for the in-flight turn, so it cannot cut it.
  it("invokeTool across a restart: the parent waits again, for the same nested call; a denial reaches the model", async () => {
    const id = await delegating("invoke");
    await inThread(id, (i) => i.ctx.abort("restart while waiting")).catch(() => undefined);
    // The watchdog resumes the cut turn, which runs its read parent again: it reaches the same
    // nested call, still waiting, and waits on it.
    // (Not awaited: the alarm resumes the turn and stays with it while it waits.)
    void runDurableObjectAlarm(rawStub(id)).catch(() => undefined);
    await until(async () => (await eventsOf(id)).filter((e) => e.type === "turn_started").length === 2, "the turn to resume");
    await sleep(50);
    expect((await callsOf(id)).map((c) => `${c.callId}:${c.status}`).sort()).toEqual(["d.invoke1:awaiting_approval", "d:started"]);
    expect((await json("POST", `/threads/${id}/calls/d.invoke1/deny`, { reason: "too much" })).status).toBe(200);
    await expectDecisionReachedModel(id, "d", /invoked needs_ok: .*denied by tester: too much/);
    expect((await effectRuns(id, "d.invoke1")).runs).toBe(0);
  });

  it("invokeTool, approved while the thread is down: the parent takes the decision when it comes back", async () => {
    const id = await delegating("invoke");
    await inThread(id, (i) => i.ctx.abort("restart while waiting")).catch(() => undefined);
    expect((await json("POST", `/threads/${id}/calls/d.invoke1/approve`, {})).status).toBe(200);
    await expectDecisionReachedModel(id, "d", /invoked needs_ok: .*"status":"success"/);
    expect((await effectRuns(id, "d.invoke1")).runs).toBe(1);
  });

  it("queueTool: the queued call that waits keeps the turn waiting across a restart; its result joins the history", async () => {
    const id = await delegating("queue");
    expect(await statusOf(id, "d")).toBe("succeeded");
    await stubOf(id).waitIdle();
    expect((await json("GET", `/threads/${id}`)).body.status).toBe("waiting");
    const waiting = (await eventsOf(id)).filter((e) => e.type === "turn_waiting").map((e) => (e.data as { callIds: string[] }).callIds);
    expect(waiting.at(-1)).toEqual(["d.queue1"]);
    await evictDurableObject(rawStub(id));
    expect((await json("GET", `/threads/${id}`)).body.status).toBe("waiting");
    expect((await json("POST", `/threads/${id}/calls/d.queue1/approve`, {})).status).toBe(200);
    await expectDecisionReachedModel(id, "d.queue1", /"status"|approvedBy/);
    expect((await effectRuns(id, "d.queue1")).runs).toBe(1);
  });
});
