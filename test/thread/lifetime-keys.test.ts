/**
 * A thread made again on a deleted thread's id (same `continuationToken`) is a new branch: a call
 * with a call id the deleted thread used gets a new effect key, so an agent called as a tool starts
 * a new child instead of taking the deleted thread's child and its answer.
 */
import { describe, expect, it } from "vitest";
import { callsOf, eventsOf, json, runTurn } from "../helpers.js";

/** The `delegator` thread of `token`, made (again) on its id. */
async function make(token: string): Promise<string> {
  const made = await json<{ threadId: string }>("POST", "/threads", { agent: "delegator", continuationToken: token });
  expect(made.status).toBe(201);
  return made.body.threadId;
}

/** Runs a turn calling the `researcher` agent as call `r1`; answers its effect key and child. */
async function delegate(id: string, input: string): Promise<{ effectKey: string; childId: string }> {
  await runTurn(id, "find it", [{ toolCalls: [{ id: "r1", name: "researcher", arguments: { input } }] }, { text: "ok" }]);
  const [call] = await callsOf(id);
  const started = (await eventsOf(id)).find((e) => e.type === "subagent_started")!.data as { childThreadId: string };
  return { effectKey: call!.effectKey, childId: started.childThreadId };
}

describe("a thread made again on a deleted thread's id", () => {
  it("gives a reused call id a new effect key and a new child thread", async () => {
    const token = `lifetimes:${crypto.randomUUID()}`;
    const id = await make(token);
    const first = await delegate(id, "first question");
    expect(first.effectKey).toMatch(new RegExp(`^${id}\\.[0-9a-f]{8}:r1$`));
    expect((await json("DELETE", `/threads/${id}`)).status).toBeLessThan(300);

    expect(await make(token)).toBe(id);
    const second = await delegate(id, "second question");
    expect(second.effectKey).toMatch(new RegExp(`^${id}\\.[0-9a-f]{8}:r1$`));
    expect(second.effectKey).not.toBe(first.effectKey);
    expect(second.childId).not.toBe(first.childId);
    // The new child ran the new call's arguments, not the deleted thread's.
    const child = (await json("GET", `/threads/${second.childId}`)).body;
    expect(child).toMatchObject({ arguments: { input: "second question" }, parent: { threadId: id, callId: "r1" } });
  });
});
