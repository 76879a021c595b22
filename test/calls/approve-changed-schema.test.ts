/**
 * A call that waited for approval while a deploy changed its tool's input schema: on approval its
 * stored input is checked against the tool as it is now, and one the tool refuses never runs.
 */
import { describe, expect, it } from "vitest";
import { argsHashOf } from "../../src/calls/input.js";
import { callsOf, createThread, effectRuns, inThread, json } from "../helpers.js";

describe("approving a call whose tool changed since it asked", () => {
  it("ends it failed with invalid_tool_input naming the path; execute never runs", async () => {
    const id = await createThread({ agent: "guarantees" });
    // Stored as a call made before `amount` became a number: past every check it had then.
    const old = { amount: "500" };
    await inThread(id, async (instance) => {
      const calls = instance.world.store.calls;
      calls.insert({ callId: "old", toolName: "needs_ok", source: "direct", status: "queued", argsText: JSON.stringify(old), effectKey: `${id}:old` });
      calls.awaitApproval("old", old, await argsHashOf(old, instance.world.store.meta.secret("args_key")));
    });
    const approved = await json("POST", `/threads/${id}/calls/old/approve`, {});
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ callId: "old", status: "failed", isError: true });
    expect(approved.body.result.error).toMatch(/^invalid_tool_input: amount: .*changed since this call asked for approval; it did not run/);
    expect((await callsOf(id)).find((c) => c.callId === "old")).toMatchObject({ status: "failed", approvedBy: "tester", errorCode: "invalid_tool_input", errorDetails: { path: ["amount"] } });
    expect((await effectRuns(id, "old")).runs).toBe(0);
  });
});
