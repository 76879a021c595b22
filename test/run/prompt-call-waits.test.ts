/**
 * Work nested in a call that waits for a person or is cut by a restart: a call inside a prompt
 * called as a tool waits for approval (the prompt call and its turn wait durably, and go on once
 * the person decided), a prompt call cut by a restart resumes its nested loop (never parked, no
 * write inside it twice), and a sub-agent whose child thread waits for a person makes its parent
 * call wait, not fail.
 */
import { evictDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { planCrashes } from "../crash/plan.js";
import { waitAtRest, waitForAlarm } from "../crash/matrix.js";
import { callsOf, createThread, eventsOf, json, effectRuns, rawStub, runTurn, stubOf } from "../helpers.js";

const call = (id: string, name: string, args: Record<string, unknown> = {}) => ({ toolCalls: [{ id, name, arguments: args }] });

/** Messages of a thread with their depth, as `depth:role:content`. */
async function nestedOf(id: string): Promise<string[]> {
  const all = (await json("GET", `/threads/${id}/messages?limit=1000`)).body.messages as Array<{ role: string; content: string; depth?: number }>;
  return all.filter((m) => (m.depth ?? 0) > 0).map((m) => `${m.depth}:${m.role}:${m.content}`);
}

describe("a call inside a prompt called as a tool waits for approval", () => {
  it("the prompt call and its turn wait durably; approval runs the inner call once and the prompt and turn go on", async () => {
    const id = await createThread({ agent: "payer" });
    const posted = await json("POST", `/threads/${id}/messages`, {
      content: "pay 500",
      script: [call("p1", "payout", { input: "pay 500" }), call("n_pay", "needs_ok", { amount: 500 }), { text: "paid 500" }, { text: "done" }],
    });
    expect(posted.status).toBe(202);
    await stubOf(id).waitIdle();
    const waiting = Object.fromEntries((await callsOf(id)).map((c) => [c.callId, c.status]));
    expect(waiting).toEqual({ p1: "parked", n_pay: "awaiting_approval" });
    expect((await json("GET", `/threads/${id}`)).body).toMatchObject({ status: "waiting" });

    // Durable: the thread is evicted while it waits; the approval alone brings everything back.
    await evictDurableObject(rawStub(id));
    const approved = await json("POST", `/threads/${id}/calls/n_pay/approve`, {});
    expect(approved.body).toMatchObject({ callId: "n_pay", status: "succeeded" });
    await stubOf(id).waitIdle();

    const calls = Object.fromEntries((await callsOf(id)).map((c) => [c.callId, c]));
    expect(calls.p1).toMatchObject({ status: "succeeded", result: { status: "success", result: "paid 500" } });
    expect(calls.n_pay).toMatchObject({ status: "succeeded", approvedBy: "tester", attempts: 1 });
    expect((await effectRuns(id, "n_pay")).runs).toBe(1);
    // The nested loop went on where it stood: one opening message, the call's result once, then its answer.
    expect(await nestedOf(id)).toEqual(["1:user:pay 500", "1:assistant:", `1:tool:${calls.n_pay!.result!.result}`, "1:assistant:paid 500"]);
    expect((await json("GET", `/threads/${id}`)).body.lastTurn).toMatchObject({ status: "completed" });
    const top = (await json("GET", `/threads/${id}/messages?maxDepth=0`)).body.messages as Array<{ role: string; content: string }>;
    expect(top.map((m) => `${m.role}:${m.content}`)).toEqual(["user:pay 500", "assistant:", "tool:paid 500", "assistant:done"]);
  });

  it("a denial reaches the nested loop: the prompt's model sees it and the prompt call answers", async () => {
    const id = await createThread({ agent: "payer" });
    await json("POST", `/threads/${id}/messages`, {
      content: "pay 500",
      script: [call("p1", "payout", { input: "pay 500" }), call("n_pay", "needs_ok", { amount: 500 }), { text: "could not pay" }, { text: "sorry" }],
    });
    await stubOf(id).waitIdle();
    await json("POST", `/threads/${id}/calls/n_pay/deny`, { reason: "too much" });
    await stubOf(id).waitIdle();
    const calls = Object.fromEntries((await callsOf(id)).map((c) => [c.callId, c]));
    expect(calls.n_pay).toMatchObject({ status: "denied" });
    expect(calls.p1).toMatchObject({ status: "succeeded", result: { result: "could not pay" } });
    expect((await effectRuns(id, "n_pay")).runs).toBe(0);
    expect(await nestedOf(id)).toContain("1:tool:denied by tester: too much");
  });


  it("called directly at rest, the prompt call waits too, and finishes at rest once the person decided", async () => {
    const id = await createThread({ agent: "payer" });
    // The first turn plays one step; the rest of the script is what the direct call's nested loop plays.
    await runTurn(id, "hello", [{ text: "hi" }, call("d_pay", "needs_ok", { amount: 500 }), { text: "paid directly" }]);
    const direct = await json("POST", "/v1/tools/payout", { input: { input: "pay 500" }, sessionId: id });
    expect(direct.body).toMatchObject({ ok: false, status: "parked" });
    const callId = direct.body.callId as string;
    expect((await callsOf(id)).find((c) => c.callId === callId)).toMatchObject({ source: "direct", status: "parked" });
    expect((await json("POST", `/threads/${id}/calls/d_pay/approve`, {})).status).toBe(200);
    await stubOf(id).waitIdle();
    const done = (await callsOf(id)).find((c) => c.callId === callId);
    expect(done).toMatchObject({ status: "succeeded", result: { status: "success", result: "paid directly" } });
    expect((await effectRuns(id, "d_pay")).runs).toBe(1);
  });
});

describe("a prompt call cut by a restart", () => {
  it("resumes its nested loop where it stood: never parked, the write inside it ran once", async () => {
    const id = await createThread({ agent: "payer" });
    // The thread restarts right after the nested write recorded its result, before its step closed.
    planCrashes(id, [{ point: "after_result", callId: "w1" }]);
    await json("POST", `/threads/${id}/messages`, {
      content: "write it",
      script: [call("p1", "payout", { input: "write it" }), call("w1", "effect_write", { label: "x" }), { text: "wrote it" }, { text: "done" }],
    });
    expect(await waitForAlarm(id)).toBe(true);
    expect(await waitAtRest(id)).toBeNull();
    await stubOf(id).waitIdle();
    const calls = Object.fromEntries((await callsOf(id)).map((c) => [c.callId, c]));
    expect(calls.w1).toMatchObject({ status: "succeeded" });
    expect((await effectRuns(id, "w1")).runs).toBe(1);
    expect(calls.p1).toMatchObject({ status: "succeeded", result: { status: "success", result: "wrote it" } });
    const events = await eventsOf(id);
    expect(events.filter((e) => e.type === "tool_call_parked")).toEqual([]);
    expect((await nestedOf(id)).filter((m) => m.startsWith("1:user:"))).toEqual(["1:user:write it"]);
    expect((await json("GET", `/threads/${id}`)).body.lastTurn).toMatchObject({ status: "completed" });
  });
});

describe("a sub-agent whose child thread waits for a person", () => {
  it("the parent call waits (not an error), and answers once the person decided in the child", async () => {
    const id = await createThread({ agent: "careful_delegator" });
    await json("POST", `/threads/${id}/messages`, { content: "research", script: [call("cr1", "careful_researcher", { input: "What is 6x7?" }), { text: "It is 42." }] });
    await stubOf(id).waitIdle();
    const [cr1] = await callsOf(id);
    expect(cr1).toMatchObject({ callId: "cr1", status: "parked" });
    expect((await json("GET", `/threads/${id}`)).body).toMatchObject({ status: "waiting" });
    const childId = ((await eventsOf(id)).find((e) => e.type === "subagent_started")!.data as { childThreadId: string }).childThreadId;
    expect((await json("GET", `/threads/${childId}`)).body).toMatchObject({ status: "waiting" });

    await evictDurableObject(rawStub(id));
    expect((await json("POST", `/threads/${childId}/calls/c_pay/approve`, {})).status).toBe(200);
    await stubOf(childId).waitIdle();
    // The child tells its parent, which goes on by itself.
    const deadline = Date.now() + 10_000;
    while ((await json("GET", `/threads/${id}`)).body.lastTurn?.status !== "completed" && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const [done] = await callsOf(id);
    expect(done).toMatchObject({ callId: "cr1", status: "succeeded", result: { status: "success", result: "Bought the source; the answer is 42." } });
    expect((await json("GET", `/threads/${id}`)).body.lastTurn).toMatchObject({ status: "completed" });
    const children = new Set((await eventsOf(id)).filter((e) => e.type === "subagent_started").map((e) => (e.data as { childThreadId: string }).childThreadId));
    expect([...children]).toEqual([childId]);
  });
});
