import { evictDurableObject, runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createThread, eventsOf, inThread, json, rawStub, runTurn } from "../helpers.js";

type Call = { callId: string; toolName: string; source: string; status: string; result?: { status: string; result?: string; error?: string } };

async function calls(threadId: string): Promise<Call[]> {
  return (await json<{ calls: Call[] }>("GET", `/threads/${threadId}/calls`)).body.calls;
}

describe("queueTool", () => {
  it("runs queued calls after the current tool, in queue order; a failing one does not block the next", async () => {
    const id = await createThread({ agent: "faults" });
    await runTurn(id, "go", [{ toolCalls: [{ id: "q", name: "queue_two", arguments: {} }] }, { text: "ok" }]);
    const all = await calls(id);
    expect(all.map((c) => `${c.toolName}:${c.source}:${c.status}`)).toEqual([
      "queue_two:model:succeeded",
      "throws_error:queue:failed",
      "record_call:queue:succeeded",
    ]);
    // A write that threw after it began: its outcome is unknown, and the model is told so.
    expect(all[1]!.result!.error).toMatch(/^card declined\. The outcome is unknown: .*repeating the call may repeat the effect$/);
    const events = await eventsOf(id);
    const finished = events.filter((e) => e.type === "tool_call_finished").map((e) => (e.data as { toolName: string }).toolName);
    expect(finished).toEqual(["queue_two", "throws_error", "record_call"]);
    // The queued results join the history as their own call/result pairs, after the step's results.
    const messages = (await json("GET", `/threads/${id}/messages?limit=50`)).body.messages;
    expect(messages.map((m: { role: string; name?: string }) => m.name ?? m.role)).toEqual([
      "user",
      "assistant",
      "queue_two",
      "assistant",
      "throws_error",
      "assistant",
      "record_call",
      "assistant",
    ]);
  });

  it("keeps a queued call across an eviction and runs it when the alarm wakes the thread", async () => {
    const id = await createThread({ agent: "faults" });
    // Queue from inside the object, then evict before anything drains the queue.
    await inThread(id, async (instance: any) => {
      const engine = instance.world;
      engine.calls.queue(undefined, "record_call", { survived: true });
    });
    await evictDurableObject(rawStub(id));
    // Nothing but the alarm drains the queue; requests like this one only read.
    expect((await calls(id)).map((c) => c.status)).toEqual(["queued"]);
    let [call] = await calls(id);
    for (let i = 0; i < 50 && call!.status === "queued"; i++) {
      await runDurableObjectAlarm(rawStub(id));
      [call] = await calls(id);
    }
    expect(call!.status).toBe("succeeded");
    expect(JSON.parse(call!.result!.result!)).toEqual({ survived: true });
    const runs = await inThread(id, (instance: any) => instance.store.kv.get(`count:${call!.callId}`));
    expect(runs).toBe(1);
  });

  it("refuses to queue or invoke a tool missing from the caller's uses", async () => {
    const id = await createThread({ agent: "faults" });
    const refused = await inThread(id, async (instance: any) => {
      const { createThreadState } = await import("../../src/run/state.js");
      const state = createThreadState(instance.world, { callId: "parent", tool: instance.world.catalog.get("queue_two") }, null);
      const errors: string[] = [];
      try {
        state.queueTool("person", { name: "a", age: 1 });
      } catch (e) {
        errors.push(`${(e as any).code}: ${(e as Error).message}`);
      }
      try {
        await state.invokeTool("slow_read", { ms: 1 });
      } catch (e) {
        errors.push(`${(e as any).code}: ${(e as Error).message}`);
      }
      const allowed = await state.invokeTool("record_call", { via: "invoke" });
      return { errors, allowed };
    });
    expect(refused.errors).toEqual([
      'tool_not_allowed: tool "queue_two" may not queue "person": it is not in the tool\'s uses [throws_error, record_call]',
      'tool_not_allowed: tool "queue_two" may not invoke "slow_read": it is not in the tool\'s uses [throws_error, record_call]',
    ]);
    expect(refused.allowed).toEqual({ status: "success", result: '{"via":"invoke"}' });
    const all = await calls(id);
    expect(all.map((c) => `${c.toolName}:${c.source}`)).toEqual(["record_call:invoke"]);
  });
});
