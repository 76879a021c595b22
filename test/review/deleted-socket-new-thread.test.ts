/**
 * Review (events): a socket of a thread that was deleted gets nothing of the thread made again on
 * its id (the same continuation token): the new thread's seqs start over at 1, and a frame of it
 * on the old socket would read as a continuation of the old thread.
 */
import { expect, it } from "vitest";
import { json, runTurn, subscribe } from "../helpers.js";

it("a deleted thread's socket, not yet closed by its client, gets no frame of the thread made again on its id", async () => {
  const token = `reuse:${crypto.randomUUID()}`;
  const first = await json<{ threadId: string }>("POST", "/threads", { continuationToken: token });
  expect(first.status, JSON.stringify(first.body)).toBe(201);
  const id = first.body.threadId;
  await runTurn(id, "first life", [{ text: "one" }]);
  const old = await subscribe(id, 0);
  const last = (await json<{ lastSeq: number }>("GET", `/threads/${id}`)).body.lastSeq;
  await old.until((f) => f.at(-1)?.seq === last);
  expect((await json("DELETE", `/threads/${id}`)).status).toBe(200);
  const again = await json<{ threadId: string }>("POST", "/threads", { continuationToken: token });
  expect(again.status).toBe(201);
  expect(again.body.threadId).toBe(id);
  await runTurn(id, "second life", [{ text: "two" }]);
  await new Promise((r) => setTimeout(r, 300));
  expect(old.frames.map((f) => f.seq)).toEqual(Array.from({ length: last }, (_, i) => i + 1));
  expect(old.frames.some((f) => JSON.stringify(f.data).includes("second life"))).toBe(false);
});
