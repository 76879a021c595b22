/**
 * Agents exposed as tools: the call runs the agent in a child thread created with the call's
 * arguments, answers with the child's final text, links the child in the parent's events, and is
 * recovered by its effectKey after a restart without starting a second child.
 */
import { describe, expect, it } from "vitest";
import { callsOf, createThread, eventsOf, inThread, json, runTurn } from "../helpers.js";

describe("an agent called as a tool", () => {
  it("runs in a child thread with the call's arguments and answers with the child's final text", async () => {
    const id = await createThread({ agent: "delegator" });
    await runTurn(id, "find it", [{ toolCalls: [{ id: "r1", name: "researcher", arguments: { input: "What is 6x7?" } }] }, { text: "It is 42." }]);
    const [r1] = await callsOf(id);
    expect(r1).toMatchObject({ toolName: "researcher", status: "succeeded", result: { status: "success", result: "The answer is 42." } });

    const events = await eventsOf(id);
    const started = events.find((e) => e.type === "subagent_started")!.data as { childThreadId: string; callId: string; agentId: string };
    const finished = events.find((e) => e.type === "subagent_finished")!.data as { childThreadId: string; status: string };
    expect(started).toMatchObject({ callId: "r1", agentId: "researcher" });
    expect(finished).toEqual({ callId: "r1", agentId: "researcher", childThreadId: started.childThreadId, status: "completed" });
    expect(events.findIndex((e) => e.type === "subagent_started")).toBeLessThan(events.findIndex((e) => e.type === "subagent_finished"));

    const child = (await json("GET", `/threads/${started.childThreadId}`)).body;
    expect(child).toMatchObject({ agentId: "researcher", arguments: { input: "What is 6x7?" }, parent: { threadId: id, callId: "r1" }, lastTurn: { status: "completed" } });
    const childMessages = (await json("GET", `/threads/${started.childThreadId}/messages`)).body.messages as Array<{ role: string; content: string }>;
    expect(childMessages[0]).toMatchObject({ role: "user", content: "What is 6x7?" });
    expect(childMessages.at(-1)).toMatchObject({ role: "assistant", content: "The answer is 42." });
  });

  it("after a restart cut the call, recovery finds the child by effectKey and takes its answer: no second child", async () => {
    const id = await createThread({ agent: "delegator" });
    await runTurn(id, "find it", [{ toolCalls: [{ id: "r1", name: "researcher", arguments: { input: "again" } }] }, { text: "ok" }]);
    const childId = ((await eventsOf(id)).find((e) => e.type === "subagent_started")!.data as { childThreadId: string }).childThreadId;
    const before = (await json("GET", `/threads/${childId}/messages`)).body.total;

    // The journal as a restart after the child finished, before the parent recorded it, leaves it.
    const recovered = await inThread(id, async (instance: any) => {
      instance.ctx.storage.sql.exec("UPDATE calls SET status = 'started', result = NULL, finished_at = NULL WHERE call_id = 'r1'");
      const [outcome] = await instance.world.calls.recover();
      return outcome;
    });
    expect(recovered).toMatchObject({ callId: "r1", status: "succeeded", result: { status: "success", result: "The answer is 42." } });
    const after = (await json("GET", `/threads/${childId}/messages`)).body.total;
    expect(after).toBe(before);
    const starts = (await eventsOf(id)).filter((e) => e.type === "subagent_started");
    expect(starts).toHaveLength(1);
  });

  it("the child's arguments are persisted and visible to its tools", async () => {
    const id = await createThread({ agent: "delegator" });
    await runTurn(id, "go", [{ toolCalls: [{ id: "r1", name: "researcher", arguments: { input: "persist me" } }] }, { text: "ok" }]);
    const childId = ((await eventsOf(id)).find((e) => e.type === "subagent_started")!.data as { childThreadId: string }).childThreadId;
    const args = await inThread(childId, async (instance: any) => {
      const { createThreadState } = await import("../../src/run/state.js");
      return createThreadState(instance.world, undefined, null).arguments;
    });
    expect(args).toEqual({ input: "persist me" });
  });

  it("a create whose answer was lost after it made the child goes on with that child: no failed call, no second child", async () => {
    const id = await createThread({ agent: "delegator" });
    // The child is made, then the answer is lost in transit (the RPC fails after the work was done).
    await inThread(id, (instance: any) => {
      const peers = instance.world.peers;
      const create = peers.create.bind(peers);
      peers.create = async (...args: unknown[]) => {
        await create(...args);
        peers.create = create;
        throw new Error("Network connection lost.");
      };
    });
    await runTurn(id, "find it", [{ toolCalls: [{ id: "r1", name: "researcher", arguments: { input: "What is 6x7?" } }] }, { text: "It is 42." }]);
    const [r1] = await callsOf(id);
    expect(r1).toMatchObject({ toolName: "researcher", status: "succeeded", attempts: 1, result: { status: "success", result: "The answer is 42." } });
    expect((await eventsOf(id)).filter((e) => e.type === "subagent_started")).toHaveLength(1);
  });
});
