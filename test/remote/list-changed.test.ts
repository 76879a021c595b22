/**
 * `notifications/tools/list_changed`: a server that announces it while answering a call (on the
 * call's event stream) is listed again before the next model step, so a tool it added is offered
 * at once instead of after the list's TTL.
 */
import { describe, expect, it } from "vitest";
import { callsOf, createThread, runTurn } from "../helpers.js";

describe("a remote server's tools/list_changed", () => {
  it("refreshes the catalog before the next step: the new tool is offered and called", async () => {
    const id = await createThread({ agent: "remote_changing" });
    await runTurn(id, "grow", [{ toolCalls: [{ id: "g", name: "changing__grow", arguments: {} }] }, { toolCalls: [{ id: "e", name: "changing__extra", arguments: {} }] }, { text: "done" }]);
    const calls = await callsOf(id);
    expect(calls.find((c) => c.callId === "g")).toMatchObject({ status: "succeeded", result: { result: "grown" } });
    expect(calls.find((c) => c.callId === "e")).toMatchObject({ status: "succeeded", result: { result: "extra ran" } });
  });

  it("without a change announced, a tool the server never listed stays unknown", async () => {
    const id = await createThread({ agent: "remote_changing" });
    await runTurn(id, "extra", [{ toolCalls: [{ id: "e", name: "changing__extra", arguments: {} }] }, { text: "done" }]);
    expect((await callsOf(id))[0]!.result!.error).toMatch(/^unknown_tool: /);
  });
});
