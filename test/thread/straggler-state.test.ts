/**
 * A tool still running after its thread was deleted (it ignores its signal) that uses its `state`
 * once the thread was made again on the same id: every read and write is refused with
 * `thread_not_found`, and nothing of it lands in the new thread (its values, env, messages, events,
 * calls and schedules are the new thread's alone).
 */
import { expect, it } from "vitest";
import { eventsOf, inThread, json } from "../helpers.js";
import { direct, untilStarted } from "../removal-helpers.js";

it("a tool of a deleted thread can neither read nor write the thread re-created on that id", async () => {
  const token = `straggler-state:${crypto.randomUUID()}`;
  const first = await json("POST", "/threads", { agent: "deletable", continuationToken: token });
  expect(first.status).toBe(201);
  const id = first.body.threadId as string;
  const key = crypto.randomUUID();
  const straggler = direct("act_after_release", { key }, id);
  await untilStarted(id, 1);
  expect(await json("DELETE", `/threads/${id}`)).toEqual({ status: 200, body: { deleted: true } });
  expect((await straggler).status).toBe(404);
  const again = await json("POST", "/threads", { agent: "deletable", continuationToken: token });
  expect(again.status).toBe(201);
  expect(again.body.threadId).toBe(id);
  // Released inside the object, as a timer of the tool would be, now that the new thread exists.
  const g = globalThis as unknown as { __actRelease: Record<string, () => void>; __actResults: Record<string, Record<string, string>> };
  await inThread(id, () => g.__actRelease[key]!());
  const results = await inThread(id, async () => {
    for (let i = 0; i < 100 && !g.__actResults?.[key]; i++) await new Promise((r) => setTimeout(r, 20));
    return g.__actResults?.[key];
  });
  expect(results).toEqual({
    setValue: "thread_not_found",
    getValue: "thread_not_found",
    setEnv: "thread_not_found",
    env: "thread_not_found",
    injectMessage: "thread_not_found",
    getMessages: "thread_not_found",
    emit: "thread_not_found",
    queueTool: "thread_not_found",
    schedule: "thread_not_found",
    "runs.list": "thread_not_found",
  });
  const rows = await inThread(id, (t) => {
    const sql = t.ctx.storage.sql as SqlStorage;
    const count = (table: string) => sql.exec(`SELECT COUNT(*) AS n FROM ${table}`).one().n;
    return { kv: count("kv"), env: count("env"), messages: count("messages"), calls: count("calls"), schedules: count("schedules") };
  });
  expect(rows).toEqual({ kv: 0, env: 0, messages: 0, calls: 0, schedules: 0 });
  expect((await eventsOf(id)).map((e) => [e.seq, e.type])).toEqual([[1, "thread_created"]]);
}, 60_000);
