import { describe, expect, it } from "vitest";
import { callsOf, createThread, eventsOf, json, runTurn, stubOf } from "../helpers.js";

describe("retries of transient failures (the Agent SDK tools reference)", () => {
  it("runs a read again after transient failures before the model sees anything", async () => {
    const id = await createThread({ agent: "guarantees" });
    await runTurn(id, "go", [{ toolCalls: [{ id: "r1", name: "flaky", arguments: { failures: 2 } }] }]);
    const [call] = await callsOf(id);
    expect(call).toMatchObject({ status: "succeeded", attempts: 3, result: { result: "ok after 3 attempts" } });
    const finished = (await eventsOf(id)).filter((e) => e.type === "tool_call_finished");
    expect(finished).toHaveLength(1);
    expect(finished[0]!.data).toMatchObject({ attempts: 3, isError: false });
  });

  it("retries a network failure of fetch, and gives up after 3 attempts with the last message unchanged", async () => {
    const id = await createThread({ agent: "guarantees" });
    await runTurn(id, "go", [
      { toolCalls: [{ id: "n1", name: "flaky", arguments: { failures: 1, how: "network" } }] },
      { toolCalls: [{ id: "n2", name: "flaky", arguments: { failures: 5 } }] },
    ]);
    const [network, exhausted] = await callsOf(id);
    expect(network).toMatchObject({ status: "succeeded", attempts: 2 });
    expect(exhausted).toMatchObject({ status: "failed", attempts: 3, result: { error: "service unavailable (attempt 3)" } });
  });

  it("runs a write once, even when it fails transiently", async () => {
    const id = await createThread({ agent: "guarantees" });
    await runTurn(id, "go", [{ toolCalls: [{ id: "w1", name: "flaky", arguments: { failures: 1, asWrite: true } }] }]);
    const [call] = await callsOf(id);
    expect(call).toMatchObject({ status: "failed", attempts: 1, outcome: "unknown" });
    expect(call!.result!.error).toMatch(/^service unavailable \(attempt 1\)\. The outcome is unknown/);
  });

  it("does not retry a permanent failure of a read", async () => {
    const id = await createThread({ agent: "guarantees" });
    await runTurn(id, "go", [{ toolCalls: [{ id: "p1", name: "flaky", arguments: { failures: 1, how: "permanent" } }] }]);
    expect((await callsOf(id))[0]).toMatchObject({ status: "failed", attempts: 1, result: { error: "permanent failure 1" } });
  });

  it("retries direct calls by the same rule", async () => {
    const { body } = await json("POST", "/v1/tools/flaky", { input: { failures: 2 } });
    expect(body).toMatchObject({ ok: true, attempts: 3, result: "ok after 3 attempts" });
  });
});

describe("throwIfTransient", () => {
  it("turns 408, 429 and 5xx into TransientError and passes other responses through", async () => {
    const { throwIfTransient, isTransient, TransientError } = await import("../../src/index.js");
    for (const status of [408, 429, 500, 503, 599]) {
      let thrown: unknown;
      try {
        throwIfTransient(new Response(null, { status }));
      } catch (e) {
        thrown = e;
      }
      expect(thrown).toBeInstanceOf(TransientError);
      expect(isTransient(thrown)).toBe(true);
      expect((thrown as InstanceType<typeof TransientError>).status).toBe(status);
    }
    for (const status of [200, 400, 404, 409]) expect(throwIfTransient(new Response(null, { status })).status).toBe(status);
    expect(isTransient(new Error("boom"))).toBe(false);
    expect(isTransient(new TypeError("Network connection lost."))).toBe(true);
  });
});

describe("retry backoff holds no lock", () => {
  it("lets other work of the thread run while a read waits to retry", async () => {
    const id = await createThread({ agent: "guarantees" });
    await json("POST", `/threads/${id}/messages`, { content: "go", script: [{ toolCalls: [{ id: "slow", name: "flaky", arguments: { failures: 2 } }] }] });
    const direct = await json("POST", "/v1/tools/remember", { input: { word: "meanwhile" }, sessionId: id });
    expect(direct.status).toBe(200);
    // The direct read finished while the retrying call was still between attempts.
    expect((await json("GET", `/threads/${id}`)).body.status).toBe("running");
    await stubOf(id).waitIdle();
    expect((await callsOf(id)).find((c) => c.callId === "slow")).toMatchObject({ status: "succeeded", attempts: 3 });
  });
});
