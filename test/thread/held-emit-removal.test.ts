/**
 * A tool still running after its thread was deleted (it ignores its signal) that then calls
 * `state.emit`: the event cannot be stored (the tables are gone), and nothing of it may stay in
 * memory to land in a thread made later under the same id (found by a hostile review of held
 * emits: it came back as that thread's first event).
 */
import { runInDurableObject } from "cloudflare:test";
import { expect, it } from "vitest";
import { eventsOf, json, rawStub } from "../helpers.js";
import { direct, untilStarted } from "../removal-helpers.js";

it("events a tool emits after its thread's deletion never reach the thread re-created on that id", async () => {
  const token = `held-emit-removal:${crypto.randomUUID()}`;
  const first = await json("POST", "/threads", { agent: "deletable", continuationToken: token });
  expect(first.status).toBe(201);
  const id = first.body.threadId as string;
  const key = crypto.randomUUID();
  const straggler = direct("emit_after_release", { key, count: 3, note: "from the deleted thread" }, id);
  await untilStarted(id, 1);
  expect(await json("DELETE", `/threads/${id}`)).toEqual({ status: 200, body: { deleted: true } });
  expect((await straggler).status).toBe(404);
  // Released inside the object, as a timer of the tool would be: it emits into the deleted thread.
  await runInDurableObject(rawStub(id), () => (globalThis as unknown as { __emitRelease: Record<string, () => void> }).__emitRelease[key]!());
  await new Promise((r) => setTimeout(r, 100));
  const again = await json("POST", "/threads", { agent: "deletable", continuationToken: token });
  expect(again.status).toBe(201);
  expect(again.body.threadId).toBe(id);
  expect((await eventsOf(id)).map((e) => [e.seq, e.type])).toEqual([[1, "thread_created"]]);
}, 60_000);
