/**
 * The fixture's `tool_call_finished` hook sees an approved call's result and a denied call's, as
 * it sees a call that ran in its turn (it never did: a decision recorded the result outside the
 * request that runs the hook).
 */
import { expect, it } from "vitest";
import { createThread, inThread, json, stubOf } from "../helpers.js";

const kv = (id: string, key: string) =>
  inThread(id, async (instance: any) => {
    const { createThreadState } = await import("../../src/run/state.js");
    return createThreadState(instance.world, undefined, null).getValue<unknown[]>(key);
  });

it.each([
  ["approve", "needs_ok:succeeded"],
  ["deny", "needs_ok:denied"],
])("the tool_call_finished hook runs after a person's %s", async (decision, seen) => {
  const id = await createThread({ agent: "hooked" });
  await json("POST", `/threads/${id}/messages`, { content: "pay", script: [{ toolCalls: [{ id: "w1", name: "needs_ok", arguments: { amount: 500 } }] }, { text: "ok" }] });
  await stubOf(id).waitIdle();
  expect((await json("POST", `/threads/${id}/calls/w1/${decision}`, {})).status).toBe(200);
  await stubOf(id).waitIdle();
  expect(await kv(id, "finished")).toEqual([seen]);
});
