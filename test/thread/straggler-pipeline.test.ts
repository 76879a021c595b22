/**
 * Code of a deleted thread still waiting when the thread is made again on the same id, other than
 * a tool's `state` calls: an approval predicate that answers late (the pipeline would go on to
 * write the call as waiting for approval), and a turn's tool reading its run's history through
 * `state.execution`. Neither reaches the new thread. Found by a hostile review of the first fix,
 * which refused only the `state` functions themselves.
 */
import { expect, it } from "vitest";
import { eventsOf, inThread, json, stubOf, until } from "../helpers.js";
import { OWNER, direct, keyedThread } from "../removal-helpers.js";

it("an approval predicate of a deleted thread that answers late writes nothing into the thread re-created on that id", async () => {
  const { id, again } = await keyedThread("straggler-predicate");
  const key = crypto.randomUUID();
  const g = globalThis as unknown as { __approveRelease?: Record<string, () => void> };
  const straggler = direct("approve_after_release", { key }, id);
  await until(() => inThread(id, () => g.__approveRelease?.[key] !== undefined), "the predicate to wait");
  expect(await json("DELETE", `/threads/${id}`)).toEqual({ status: 200, body: { deleted: true } });
  await again();
  await inThread(id, () => g.__approveRelease![key]!());
  expect((await straggler).status).toBe(404);
  await new Promise((r) => setTimeout(r, 100));
  const listed = await stubOf(id).listCalls(OWNER, {});
  expect(listed.ok && listed.value.calls.map((c: { toolName: string; status: string }) => [c.toolName, c.status])).toEqual([]);
  expect((await eventsOf(id)).map((e) => e.type)).toEqual(["thread_created"]);
}, 60_000);

it("a turn's tool of a deleted thread cannot read the re-created thread's conversation, by getMessages or state.execution", async () => {
  const { id, again } = await keyedThread("straggler-history");
  const key = crypto.randomUUID();
  const g = globalThis as unknown as { __historyRelease?: Record<string, () => void>; __historyResults?: Record<string, unknown> };
  const posted = await json("POST", `/threads/${id}/messages`, {
    content: "the old thread's words",
    script: [{ toolCalls: [{ id: "h1", name: "history_after_release", arguments: { key } }] }, { text: "never reached" }],
  });
  expect(posted.status).toBe(202);
  await until(() => inThread(id, () => g.__historyRelease?.[key] !== undefined), "the tool to wait");
  expect(await json("DELETE", `/threads/${id}`)).toEqual({ status: 200, body: { deleted: true } });
  await again();
  expect((await json("POST", `/threads/${id}/messages`, { content: "the new thread's private words", script: [{ text: "noted" }] })).status).toBe(202);
  expect((await stubOf(id).waitIdle()).ok).toBe(true);
  await inThread(id, () => g.__historyRelease![key]!());
  const results = await inThread(id, async () => {
    for (let i = 0; i < 100 && !g.__historyResults?.[key]; i++) await new Promise((r) => setTimeout(r, 20));
    return g.__historyResults?.[key];
  });
  expect(results).toEqual({ getMessages: "thread_not_found", history: "thread_not_found" });
}, 60_000);
