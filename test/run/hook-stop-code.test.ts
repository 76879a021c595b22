/**
 * Code a hook started is part of the hook's work: when a stop cuts the hook, its code is cancelled
 * too, so nothing it would do after the stop (a tool call) happens.
 */
import { expect, it } from "vitest";
import { callsOf, createThread, inThread, json, until } from "../helpers.js";
import { started, stuck } from "../fixtures/lib/hooked.js";

it("a stop that cuts an admission's before_create_message cancels the code the hook started: its tool call never runs", async () => {
  const id = await createThread({ agent: "hooked_too" });
  const post = json("POST", `/threads/${id}/messages`, { content: "[code] hello" });
  await until(async () => stuck[id]?.hook === "before_create_message", "the hook to hang", 20_000);
  expect((await json("POST", `/threads/${id}/stop`)).body).toEqual({ stopped: true });
  expect((await post).status).toBe(202);
  // The code's own wait ends well within this; cancelled, it never calls the tool.
  const result = await inThread(id, () => started[id]!.result);
  // Past the second the code waited before its call.
  await new Promise((r) => setTimeout(r, 1500));
  expect({ status: result.status, calls: (await callsOf(id)).map((c) => c.toolName) }).toEqual({ status: "cancelled", calls: [] });
});
