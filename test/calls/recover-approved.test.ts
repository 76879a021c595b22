/**
 * An approval durable before a restart, whose call had not begun, runs at rest when the thread
 * comes back (the call runner's `recover`). The call may wait on side b or inside a prompt, not
 * only on side a: recovery finds its tool wherever the thread offers it, as a person's decision does.
 */
import { describe, expect, it } from "vitest";
import { argsHashOf } from "../../src/calls/input.js";
import { callsOf, createThread, inThread } from "../helpers.js";

describe("recovering an approval given before a restart", () => {
  it("runs a side b call (a tool side a does not offer) once, with approvedBy", async () => {
    const id = await createThread({ agent: "catalog_side_b" });
    const outcomes = await inThread(id, async (instance) => {
      const hash = await argsHashOf({ note: "b" }, instance.world.store.meta.secret("args_key"));
      const calls = instance.world.store.calls;
      // A side b call that waited for approval, approved just before the thread restarted.
      calls.insert({ callId: "b1", toolName: "record_call", source: "model", status: "queued", argsText: '{"note":"b"}', effectKey: `${id}:b1` });
      calls.awaitApproval("b1", { note: "b" }, hash);
      calls.setApprovedBy("b1", "alice");
      return instance.world.calls.recover();
    });
    expect(outcomes).toMatchObject([{ callId: "b1", status: "succeeded", final: true }]);
    expect((await callsOf(id)).find((c) => c.callId === "b1")).toMatchObject({ status: "succeeded", approvedBy: "alice", attempts: 1 });
    expect(await inThread(id, (instance) => instance.world.store.kv.get("count:b1"))).toBe(1);
  });
});
