import { describe, expect, it } from "vitest";
import { Execution } from "../../src/run/execution.js";
import { runTurn as runTurnLoop } from "../../src/run/turn.js";
import type { PortWorld } from "../../src/run/port-world.js";
import { conversationWindow } from "../../src/run/history.js";
import { runOneTurn } from "../../src/run/one-turn.js";
import { turnConversation } from "../../src/run/conversation.js";
import { callsOf, createThread, eventsOf, inThread, json, effectRuns, messagesOf, runTurn, stubOf } from "../helpers.js";

/** Every tool call of the history has exactly one tool result after it (what every provider requires). */
function expectValidHistory(messages: Array<{ role: string; toolCallId?: string; toolCalls?: Array<{ id: string }> }>) {
  const asked = messages.flatMap((m) => (m as { toolCalls?: Array<{ id: string }> }).toolCalls?.map((c) => c.id) ?? []);
  const answered = messages.filter((m) => m.role === "tool").map((m) => m.toolCallId);
  expect(answered.sort()).toEqual(asked.sort());
}

async function waitForStatus(id: string, callId: string, status: string) {
  for (let i = 0; i < 200; i++) {
    if ((await callsOf(id)).find((c) => c.callId === callId)?.status === status) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`${callId} never reached ${status}`);
}

describe("every failure of author code is a result, and the step's other calls go on", () => {
  it("1. a throwing needsApproval predicate ends its call with an error result; the sibling runs", async () => {
    const id = await createThread({ agent: "robustness" });
    await runTurn(id, "go", [{ toolCalls: [{ id: "x", name: "approval_throws", arguments: {} }, { id: "y", name: "effect_read", arguments: {} }] }, { text: "done" }]);
    const calls = await callsOf(id);
    expect(calls.map((c) => `${c.callId}:${c.status}`)).toEqual(["x:failed", "y:succeeded"]);
    expect(calls[0]!.result!.error).toBe('tool "approval_throws": needsApproval failed: boom; the call did not run');
    expect((await effectRuns(id, "x")).runs).toBe(0);
    expect((await effectRuns(id, "y")).runs).toBe(1);
    const messages = (await json("GET", `/threads/${id}/messages?limit=100`)).body.messages;
    expectValidHistory(messages);
    expect(messages.at(-1).content).toBe("done");
    expect((await json("GET", `/threads/${id}`)).body.lastTurn.status).toBe("completed");
    const direct = await json("POST", "/v1/tools/approval_throws", { input: {}, sessionId: id });
    expect(direct.status).toBe(200);
    expect(direct.body).toMatchObject({ ok: false, isError: true, status: "failed" });
    expect(direct.body.error).toContain("needsApproval failed: boom");
  });

  it("2. an attachment without mimeType is an error result naming it, for a turn and a direct call", async () => {
    const id = await createThread({ agent: "robustness" });
    await runTurn(id, "go", [{ toolCalls: [{ id: "a", name: "attach_no_mime", arguments: {} }, { id: "b", name: "effect_read", arguments: {} }] }, { text: "done" }]);
    const calls = await callsOf(id);
    expect(calls.map((c) => `${c.callId}:${c.status}`)).toEqual(["a:failed", "b:succeeded"]);
    expect(calls[0]!.result!.error).toContain("attachments[0] without mimeType");
    expectValidHistory((await json("GET", `/threads/${id}/messages?limit=100`)).body.messages);
    const direct = await json("POST", "/v1/tools/attach_no_mime", { input: {}, sessionId: id });
    expect(direct.status).toBe(200);
    expect(direct.body).toMatchObject({ ok: false, isError: true });
    const sync = await json("POST", "/v1/tools/throws_sync", { input: {}, sessionId: id });
    expect(sync.status).toBe(200);
    expect(sync.body).toMatchObject({ status: "failed", error: "sync boom" });
  });

  it("3. a model step whose call has no arguments field runs the call with no arguments", async () => {
    const id = await createThread({ agent: "robustness" });
    const end = await inThread(id, async (instance) => {
      const engine: PortWorld = instance.world;
      const turnId = "turn_noargs";
      engine.store.turns.begin(turnId);
      // An adapter whose tool-call part lacks its input text altogether.
      const model = {
        id: "adapter",
        async *stream({ messages }: { messages: readonly unknown[] }) {
          if (messages.length === 0) {
            yield { type: "tool-call", id: "na", toolName: "effect_read" } as never;
            yield { type: "finish" as const, finishReason: "tool-calls" as const, usage: {} };
          } else {
            yield { type: "text-delta" as const, delta: "done" };
            yield { type: "finish" as const, finishReason: "stop" as const, usage: {} };
          }
        },
      };
      const execution = Execution.forTurn({ flowId: turnId, model, history: () => conversationWindow(engine, model) });
      return runTurnLoop(turnConversation(engine, execution), execution);
    });
    expect(end.status).toBe("completed");
    expect((await callsOf(id))[0]).toMatchObject({ callId: "na", status: "succeeded", argsText: "" });
    const messages = (await json("GET", `/threads/${id}/messages?limit=100`)).body.messages;
    expectValidHistory(messages);
    expect(messages.at(-1).content).toBe("done");
  });

  it("a failing turn first closes every open call of its step with an error result", async () => {
    const id = await createThread({ agent: "robustness" });
    const end = await inThread(id, async (instance) => {
      const engine = instance.world;
      const turnId = "turn_fails";
      engine.store.turns.begin(turnId);
      // The step is recorded, then dispatch itself fails (a fault of the thread, not of a tool).
      const step = [
        { id: "o1", name: "effect_read", arguments: "{}" },
        { id: "o2", name: "effect_read", arguments: "{}" },
      ];
      const model = { id: "none", stream: () => (async function* () {})() };
      await turnConversation(engine, Execution.forTurn({ flowId: turnId, model, history: () => [] })).commit([{ role: "assistant", content: "", toolCalls: step }], step);
      const dispatch = engine.calls.requestWithQueue;
      let n = 0;
      engine.calls.requestWithQueue = async (...args: unknown[]) => {
        if (++n === 2) throw new Error("the store is gone");
        return dispatch.apply(engine.calls, args);
      };
      try {
        await runOneTurn(engine, { armWatchdog: () => undefined, begun: () => undefined, hold: () => undefined }, { turnId, status: "running", steps: 1, startedAt: Date.now() });
      } finally {
        engine.calls.requestWithQueue = dispatch;
      }
      return engine.store.turns.latest();
    });
    expect(end).toMatchObject({ status: "failed", error: "the store is gone" });
    const calls = await callsOf(id);
    expect(calls.map((c) => `${c.callId}:${c.status}`)).toEqual(["o1:succeeded", "o2:aborted"]);
    expect(calls[1]!.result!.error).toBe("aborted: the turn failed before this call finished (the store is gone)");
    const messages = (await json("GET", `/threads/${id}/messages?limit=100`)).body.messages;
    expectValidHistory(messages);
  });
});

describe("approval cannot be bypassed", () => {
  it("10. a predicate answering a truthy non-boolean never runs the call: an error result names needsApproval, in a turn and for a direct call", async () => {
    const error = 'tool "approval_truthy": needsApproval failed: it returned "yes", not a boolean; the call did not run';
    const id = await createThread({ agent: "robustness" });
    await runTurn(id, "go", [{ toolCalls: [{ id: "t", name: "approval_truthy", arguments: {} }] }, { text: "done" }]);
    expect((await callsOf(id))[0]).toMatchObject({ callId: "t", status: "failed", result: { error } });
    expect((await effectRuns(id, "t")).runs).toBe(0);
    const other = await createThread({ agent: "robustness" });
    const direct = await json("POST", "/v1/tools/approval_truthy", { input: {}, sessionId: other });
    expect(direct.status).toBe(200);
    expect(direct.body).toMatchObject({ ok: false, isError: true, status: "failed", error });
    expect((await effectRuns(other, direct.body.callId)).runs).toBe(0);
  });

  it("11. approving a write on a dry-run thread stubs it instead of running it", async () => {
    const id = await createThread({ agent: "robustness", dryRun: true });
    await runTurn(id, "go", [{ toolCalls: [{ id: "pay", name: "needs_ok", arguments: { amount: 500 } }] }, { text: "done" }]);
    expect((await callsOf(id))[0]!.status).toBe("awaiting_approval");
    const approved = await json("POST", `/threads/${id}/calls/pay/approve`, {});
    expect(approved.body).toMatchObject({ status: "succeeded", stubbed: true, result: { result: "Operation acknowledged." } });
    await stubOf(id).waitIdle();
    expect((await effectRuns(id, "pay")).runs).toBe(0);
    expect((await callsOf(id))[0]).toMatchObject({ stubbed: true, approvedBy: "tester" });
  });

  it("9. approving a call while its sibling still runs lets the turn go on at once, with no stale turn_waiting", async () => {
    const id = await createThread({ agent: "robustness" });
    await json("POST", `/threads/${id}/messages`, {
      content: "go",
      script: [{ toolCalls: [{ id: "A", name: "needs_ok", arguments: { amount: 500 } }, { id: "B", name: "slow_read", arguments: { ms: 5000 } }] }, { text: "done" }],
    });
    // B waits 5 s: still running when A is approved, however loaded the machine.
    await waitForStatus(id, "A", "awaiting_approval");
    expect((await callsOf(id)).find((c) => c.callId === "B")?.status).toBe("started");
    const approved = await json("POST", `/threads/${id}/calls/A/approve`, {});
    expect(approved.body.status).toBe("succeeded");
    await stubOf(id).waitIdle();
    const info = (await json("GET", `/threads/${id}`)).body;
    expect(info.lastTurn.status).toBe("completed"); // no watchdog alarm was run
    const events = await eventsOf(id);
    expect(events.filter((e) => e.type === "turn_waiting")).toEqual([]);
    expect((await messagesOf(id)).at(-1)!.content).toBe("done");
  });
});

describe("arguments are JSON", () => {
  it("5. a coerced date can be approved, distinct dates hash apart, and execute gets a Date", async () => {
    const id = await createThread({ agent: "robustness" });
    await runTurn(id, "go", [
      { toolCalls: [{ id: "d1", name: "dated", arguments: { when: "2024-01-02T03:04:05Z" } }, { id: "d2", name: "dated", arguments: { when: "2024-06-07T08:09:10Z" } }] },
      { text: "done" },
    ]);
    const [d1, d2] = await callsOf(id);
    expect(d1!.status).toBe("awaiting_approval");
    expect(d1!.argsHash).not.toBe(d2!.argsHash);
    expect(d1!.input).toEqual({ when: "2024-01-02T03:04:05.000Z" });
    const one = await json("POST", `/threads/${id}/calls/d1/approve`, { argsHash: d1!.argsHash });
    expect(one.status).toBe(200);
    expect(one.body.result.result).toBe("Date 2024-01-02T03:04:05.000Z");
    const wrong = await json("POST", `/threads/${id}/calls/d2/approve`, { argsHash: d1!.argsHash });
    expect(wrong.body.error.code).toBe("approval_mismatch");
    expect((await json("POST", `/threads/${id}/calls/d2/approve`, { argsHash: d2!.argsHash })).body.result.result).toBe("Date 2024-06-07T08:09:10.000Z");
  });

  it("5. under asOf, timeArgs accept what the schema accepts and refuse only later instants", async () => {
    const id = await createThread({ agent: "robustness", asOf: "2025-01-01T00:00:00Z" });
    await runTurn(id, "go", [
      { toolCalls: [{ id: "ok", name: "dated", arguments: { when: "2024-01-02T03:04:05Z" } }, { id: "late", name: "dated", arguments: { when: "2026-01-01T00:00:00Z" } }] },
    ]);
    const [ok, late] = await callsOf(id);
    expect(ok!.status).toBe("awaiting_approval");
    expect(late!.status).toBe("failed");
    expect(late!.result!.error).toContain("is later than the thread's asOf");
  });
});

describe("uncertain outcomes say so", () => {
  it("17. a write that threw after its effect tells the model the effect may have happened", async () => {
    const id = await createThread({ agent: "robustness" });
    await runTurn(id, "go", [{ toolCalls: [{ id: "w", name: "ambiguous_write", arguments: {} }] }, { text: "done" }]);
    const [call] = await callsOf(id);
    expect(call).toMatchObject({ status: "failed", attempts: 1, outcome: "unknown" });
    expect(call!.result!.error).toMatch(/^read timeout\. The outcome is unknown: .*effect may have happened; repeating the call may repeat the effect$/);
    expect((await effectRuns(id, "w")).runs).toBe(1);
    const tool = (await messagesOf(id)).find((m) => m.toolCallId === "w")!;
    expect(tool.content).toContain("may have happened");
  });
});

describe("no call hangs a turn", () => {
  it("a call past its deadline fails (a read after its retries, a write with an unknown outcome) and the turn goes on", async () => {
    const id = await createThread({ agent: "robustness" });
    await runTurn(id, "go", [{ toolCalls: [{ id: "r", name: "deadline_read", arguments: {} }, { id: "w", name: "deadline_write", arguments: {} }] }, { text: "done" }]);
    const [r, w] = await callsOf(id);
    expect(r).toMatchObject({ status: "failed", attempts: 2, result: { error: "timed out: deadline_read did not finish within 30 ms (timeoutMs)" } });
    expect(w).toMatchObject({ status: "failed", attempts: 1, outcome: "unknown" });
    expect(w!.result!.error).toMatch(/^timed out: deadline_write did not finish within 30 ms \(timeoutMs\)\. The outcome is unknown/);
    expect((await messagesOf(id)).at(-1)!.content).toBe("done");
  });
});
