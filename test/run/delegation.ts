/** Threads whose agent call (`careful_delegator` calling `careful_researcher`) waits on a child thread. */
import { callsOf, createThread, eventsOf, json, until } from "../helpers.js";

/** The child thread a parent's agent call started (from its `subagent_started` event). */
export async function childThreadOf(id: string): Promise<string> {
  return ((await eventsOf(id)).find((e) => e.type === "subagent_started")!.data as { childThreadId: string }).childThreadId;
}

/** A parent whose agent call `c1` is parked on its child thread, which waits for a person to approve its write `c_pay`. */
export async function delegatedAndWaiting(): Promise<{ id: string; child: string }> {
  const id = await createThread({ agent: "careful_delegator" });
  await json("POST", `/threads/${id}/messages`, {
    content: "research",
    script: [{ toolCalls: [{ id: "c1", name: "careful_researcher", arguments: { input: "what?" } }] }, { text: "done" }],
  });
  await until(async () => (await callsOf(id)).find((c) => c.callId === "c1")?.status === "parked", "the agent call to suspend");
  const child = await childThreadOf(id);
  await until(async () => (await callsOf(child)).find((c) => c.callId === "c_pay")?.status === "awaiting_approval", "the child's write to wait");
  return { id, child };
}
