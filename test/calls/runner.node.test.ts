/**
 * The call runner's transitions, in plain Node over a world kept in memory (memory-world.ts):
 * request, the per-call lock, approval and denial, the turn's read of an outcome, stop, queue and
 * drain, recovery, settlement, and a direct call's refusal with nothing stored.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { CallExecution, CallRequest } from "../../src/calls/call.js";
import { CallRunner } from "../../src/calls/runner.js";
import { defineTool } from "../../src/tools/define.js";
import type { ExecutionState } from "../../src/tools/thread-state.js";
import { memoryWorld, statuses } from "./memory-world.js";

function fixture() {
  const runs: Record<string, number> = {};
  const count = (id: string) => (runs[id] = (runs[id] ?? 0) + 1);
  const tools = {
    echo: defineTool({ description: "a read", args: z.object({ text: z.string() }), effect: "read", execute: async (_s, args, call) => (count(call.callId), { status: "success", result: args.text }) }),
    pay: defineTool({
      description: "a write that needs approval",
      args: z.object({ amount: z.number() }),
      effect: "write",
      needsApproval: (input) => input.amount >= 100,
      execute: async (_s, args, call) => (count(call.callId), { status: "success", result: `paid ${args.amount} (${call.approvedBy ?? "nobody"})` }),
    }),
  };
  const { world, journal, events } = memoryWorld(tools);
  return { runner: new CallRunner(world), journal, events, runs };
}

const ask = (callId: string, toolName: string, value: unknown, more: Partial<CallRequest> = {}): CallRequest => ({ callId, toolName, args: { value }, source: "model", ...more });

function run(flowId = "turn_1"): CallExecution & { abort(): void } {
  const controller = new AbortController();
  return { flowId, depth: 0, signal: controller.signal, state: {} as ExecutionState, context: {}, abort: () => controller.abort(new Error("stopped")) };
}

describe("the call runner", () => {
  it("runs a request once: the same id asked again, even at the same moment, answers the recorded result", async () => {
    const { runner, runs, events } = fixture();
    const [a, b] = await Promise.all([runner.request(null, ask("c1", "echo", { text: "hi" })), runner.request(null, ask("c1", "echo", { text: "hi" }))]);
    expect(a).toMatchObject({ status: "succeeded", final: true, result: { result: "hi" } });
    expect(b).toMatchObject({ status: "succeeded", result: { result: "hi" } });
    expect(runs.c1).toBe(1);
    expect(events.filter((e) => e.type === "tool_call_finished")).toHaveLength(1);
  });

  it("a call that needs approval waits; the turn reads it waiting, then final once a person approved it", async () => {
    const { runner, runs } = fixture();
    const turn = run();
    const waiting = await runner.request(turn, ask("p1", "pay", { amount: 500 }));
    expect(waiting).toMatchObject({ status: "awaiting_approval", final: false });
    expect(await runner.outcomeOf(turn, "p1")).toMatchObject({ status: "awaiting_approval", final: false });
    const approved = await runner.approve("p1", "alice");
    expect(approved).toMatchObject({ status: "succeeded", result: { result: "paid 500 (alice)" } });
    expect(await runner.outcomeOf(turn, "p1")).toMatchObject({ status: "succeeded", final: true });
    expect(runs.p1).toBe(1);
    await expect(runner.approve("p1", "bob")).rejects.toMatchObject({ code: "call_not_waiting" });
  });

  it("a read of a call under a decision waits for the decision to end", async () => {
    const { runner } = fixture();
    await runner.request(null, ask("p2", "pay", { amount: 100 }));
    const approving = runner.approve("p2", "alice");
    const read = runner.outcomeOf(null, "p2");
    expect((await read).status).toBe("succeeded");
    await approving;
  });

  it("a denied call never runs; the model sees the denial", async () => {
    const { runner, runs } = fixture();
    await runner.request(null, ask("p3", "pay", { amount: 100 }));
    expect(await runner.deny("p3", "bob", "too much")).toMatchObject({ status: "denied", result: { error: "denied by bob: too much" } });
    expect(runs.p3).toBeUndefined();
  });

  it("stop: a call of a stopped run that waits for approval ends aborted, and a later decision finds it decided", async () => {
    const { runner, runs, journal } = fixture();
    const turn = run();
    await runner.request(turn, ask("p4", "pay", { amount: 100 }, { turnId: "turn_1" }));
    turn.abort();
    expect(await runner.outcomeOf(turn, "p4")).toMatchObject({ status: "aborted", final: true });
    await expect(runner.approve("p4", "alice")).rejects.toMatchObject({ code: "call_not_waiting" });
    expect(runs.p4).toBeUndefined();
    expect(statuses(journal)).toEqual(["p4:aborted"]);
  });

  it("stop: every open call of the stopped run ends; calls of other runs wait on", async () => {
    const { runner, journal } = fixture();
    const turn = run("turn_1");
    await runner.request(turn, ask("a", "pay", { amount: 100 }, { turnId: "turn_1" }));
    runner.queue(undefined, "echo", { text: "later" }, "turn_1", "q");
    await runner.request(null, ask("other", "pay", { amount: 100 }, { turnId: "turn_2" }));
    turn.abort();
    await runner.stop(turn);
    expect(statuses(journal)).toEqual(["a:aborted", "q:aborted", "other:awaiting_approval"]);
  });

  it("queued calls drain in queue order; a request drains what it queued", async () => {
    const { runner, journal, runs } = fixture();
    runner.queue(undefined, "echo", { text: "one" }, undefined, "q1");
    runner.queue(undefined, "echo", { text: "two" }, undefined, "q2");
    expect(statuses(journal)).toEqual(["q1:queued", "q2:queued"]);
    const { outcome, queued } = await runner.requestWithQueue(null, ask("c", "echo", { text: "now" }));
    expect(outcome.status).toBe("succeeded");
    expect(queued.map((o) => `${o.callId}:${o.result.result}`)).toEqual(["q1:one", "q2:two"]);
    expect(runs).toEqual({ c: 1, q1: 1, q2: 1 });
  });

  it("recovery: a started read runs again, a started write is parked and never runs twice; a settlement ends it", async () => {
    const { runner, journal, runs } = fixture();
    journal.insert({ callId: "r", toolName: "echo", source: "model", status: "started", argsText: '{"text":"again"}', effectKey: "t:r" });
    journal.insert({ callId: "w", toolName: "pay", source: "model", status: "started", argsText: '{"amount":1}', effectKey: "t:w" });
    expect(runner.recoverable()).toBe(true);
    const outcomes = await runner.recover();
    expect(outcomes.map((o) => `${o.callId}:${o.status}`)).toEqual(["r:succeeded", "w:parked"]);
    expect(runs).toEqual({ r: 1 });
    expect(await runner.settle("w", { outcome: "failed", error: "it did not go through", settledBy: "ann" })).toMatchObject({ status: "failed" });
    expect(runner.recoverable()).toBe(false);
  });

  it("a direct call's unknown tool or bad input is refused with nothing stored; a busy rule refuses by effect", async () => {
    const { runner, journal } = fixture();
    const direct = (toolName: string, value: unknown, admit?: CallRequest["admit"]) =>
      runner.request(null, { callId: `d_${toolName}`, toolName, args: { value }, source: "direct", refuseUnstored: true, fresh: true, ...(admit ? { admit } : {}) });
    await expect(direct("nope", {})).rejects.toMatchObject({ code: "unknown_tool" });
    await expect(direct("echo", { text: 1 })).rejects.toMatchObject({ code: "invalid_tool_input" });
    const busy: CallRequest["admit"] = (effect) => {
      if (effect !== "read") throw Object.assign(new Error("busy"), { code: "session_busy" });
    };
    await expect(direct("pay", { amount: 1 }, busy)).rejects.toMatchObject({ code: "session_busy" });
    expect(statuses(journal)).toEqual([]);
    expect(await direct("echo", { text: "read" }, busy)).toMatchObject({ status: "succeeded" });
  });
});
