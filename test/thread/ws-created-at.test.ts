/**
 * `GET /threads/:id/ws?createdAt=` names the thread a cursor belongs to: a thread removed and made
 * again on its id starts its seqs over, and a cursor of the first was served the second's later
 * frames as if they went on from it (its first frames never delivered). Found by a hostile review.
 */
import { expect, it } from "vitest";
import { eventsOf, json, request, runTurn } from "../helpers.js";

const upgrade = { headers: { Upgrade: "websocket" } };

async function make(token: string): Promise<{ id: string; createdAt: number }> {
  const made = await json<{ threadId: string; createdAt: number }>("POST", "/threads", { continuationToken: token });
  expect(made.status).toBe(201);
  return { id: made.body.threadId, createdAt: made.body.createdAt };
}

it("a cursor of a removed thread is refused on the thread made again on its id; the new one's own is served", async () => {
  const token = `cursor:${crypto.randomUUID()}`;
  const first = await make(token);
  await runTurn(first.id, "old thread", [{ text: "old answer" }]);
  const cursor = (await eventsOf(first.id)).at(-1)!.seq;

  expect((await json("DELETE", `/threads/${first.id}`)).status).toBe(200);
  await new Promise((r) => setTimeout(r, 5)); // a later millisecond for the new thread's createdAt
  const second = await make(token);
  expect(second.id).toBe(first.id);
  expect(second.createdAt).not.toBe(first.createdAt);
  await runTurn(second.id, "new thread, one", [{ text: "new answer one" }]);
  await runTurn(second.id, "new thread, two", [{ text: "new answer two" }]);
  expect((await eventsOf(second.id)).at(-1)!.seq).toBeGreaterThan(cursor);

  const stale = await request(`/threads/${first.id}/ws?since=${cursor}&createdAt=${first.createdAt}`, upgrade);
  expect(stale.status).toBe(404);
  expect(await stale.json()).toMatchObject({ error: { code: "thread_not_found", details: { createdAt: second.createdAt } } });

  const own = await request(`/threads/${second.id}/ws?since=0&createdAt=${second.createdAt}`, upgrade);
  expect(own.status).toBe(101);
  own.webSocket!.accept();
  own.webSocket!.close(1000, "done");

  const bad = await request(`/threads/${second.id}/ws?createdAt=yesterday`, upgrade);
  expect(bad.status).toBe(400);
  expect(await bad.json()).toMatchObject({ error: { code: "invalid_request", details: { path: ["createdAt"] } } });

  // Another user learns nothing from it: the thread is not theirs, whatever createdAt says.
  const other = await request(`/threads/${second.id}/ws?createdAt=${first.createdAt}`, upgrade, "alice");
  expect(other.status).toBe(404);
  expect(await other.json()).not.toMatchObject({ error: { details: { createdAt: second.createdAt } } });
});
