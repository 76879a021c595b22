/** Direct calls, queueTool and invokeTool obey the same rules as model calls (one pipeline). */
import { describe, expect, it } from "vitest";
import { callsOf, createThread, json, effectRuns, runTurn, stubOf } from "../helpers.js";

describe("direct calls follow the guarantees", () => {
  it("are stubbed in a dry-run session", async () => {
    const id = await createThread({ agent: "guarantees", dryRun: true });
    const res = await json("POST", "/v1/tools/effect_write", { input: {}, sessionId: id });
    expect(res.body).toMatchObject({ ok: true, result: "Operation acknowledged." });
    expect((await callsOf(id))[0]!.stubbed).toBe(true);
    expect((await effectRuns(id, res.body.callId)).runs).toBe(0);
  });

  it("check timeArgs in an asOf session", async () => {
    const id = await createThread({ agent: "guarantees", asOf: "2024-06-01T00:00:00Z" });
    const res = await json("POST", "/v1/tools/telemetry", { input: { since: "now", until: "2024-05-01T00:00:00Z" }, sessionId: id });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: "invalid_tool_input", details: { path: ["since"] } });
  });

  it("wait for approval (202), then run once when approved", async () => {
    const id = await createThread({ agent: "guarantees" });
    const res = await json("POST", "/v1/tools/needs_ok", { input: { amount: 1000 }, sessionId: id });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ status: "awaiting_approval", ok: false, isError: false, result: null });
    const approved = await json("POST", `/threads/${id}/calls/${res.body.callId}/approve`, { approvedBy: "ops" });
    expect(approved.body.status).toBe("succeeded");
    expect((await effectRuns(id, res.body.callId)).runs).toBe(1);
  });

  it("keep a scratch thread when the call waits, so it can be approved", async () => {
    const res = await json("POST", "/v1/tools/needs_ok", { input: { amount: 1000 } });
    expect(res.status).toBe(202);
    expect(res.body.sessionId).toMatch(/^[0-9a-f]{64}$/);
    const approved = await json("POST", `/threads/${res.body.sessionId}/calls/${res.body.callId}/approve`, {});
    expect(approved.body.status).toBe("succeeded");
  });

  it("report an outputSchema failure as an error that says the effect happened", async () => {
    const res = await json("POST", "/v1/tools/typed_output", { input: { broken: true } });
    expect(res.body).toMatchObject({ ok: false, isError: true });
    expect(res.body.error).toMatch(/^invalid_tool_output: the tool ran and its effect happened/);
  });
});

describe("queueTool and invokeTool follow the guarantees", () => {
  it("stub queued and invoked writes in a dry-run thread", async () => {
    const id = await createThread({ agent: "guarantees", dryRun: true });
    await runTurn(id, "go", [
      {
        toolCalls: [
          { id: "q", name: "delegate", arguments: { mode: "queue", tool: "effect_write" } },
          { id: "i", name: "delegate", arguments: { mode: "invoke", tool: "effect_write" } },
        ],
      },
    ]);
    const calls = await callsOf(id);
    const writes = calls.filter((c) => c.toolName === "effect_write");
    expect(writes.map((c) => `${c.source}:${c.stubbed}`).sort()).toEqual(["invoke:true", "queue:true"]);
    for (const w of writes) expect((await effectRuns(id, w.callId)).runs).toBe(0);
  });

  it("retry a transient read invoked from a tool, and refuse invalid input before execute", async () => {
    const id = await createThread({ agent: "guarantees" });
    await runTurn(id, "go", [
      {
        toolCalls: [
          { id: "i1", name: "delegate", arguments: { mode: "invoke", tool: "flaky", args: { failures: 2 } } },
          { id: "i2", name: "delegate", arguments: { mode: "invoke", tool: "flaky", args: { failures: "two" } } },
        ],
      },
    ]);
    const calls = await callsOf(id);
    const flaky = calls.filter((c) => c.toolName === "flaky");
    expect(flaky[0]).toMatchObject({ source: "invoke", status: "succeeded", attempts: 3 });
    expect(flaky[1]).toMatchObject({ source: "invoke", status: "failed", attempts: 0 });
    expect(flaky[1]!.result!.error).toBe("invalid_tool_input: failures: expected number, received string");
  });

  it("hold a queued call that needs approval until a person approves it", async () => {
    const id = await createThread({ agent: "guarantees" });
    await runTurn(id, "go", [{ toolCalls: [{ id: "q", name: "delegate", arguments: { mode: "queue", tool: "needs_ok", args: { amount: 900 } } }] }]);
    const queued = (await callsOf(id)).find((c) => c.toolName === "needs_ok")!;
    expect(queued).toMatchObject({ source: "queue", status: "awaiting_approval" });
    await json("POST", `/threads/${id}/calls/${queued.callId}/approve`, { approvedBy: "lead" });
    await stubOf(id).waitIdle();
    expect((await callsOf(id)).find((c) => c.callId === queued.callId)).toMatchObject({ status: "succeeded", approvedBy: "tester" });
  });
});
