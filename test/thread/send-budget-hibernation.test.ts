/**
 * A connection's send budget holds across the thread's object being evicted (hibernation): the
 * count kept with the socket is what the woken object goes on from, so a subscriber whose thread
 * sleeps between small bursts is still closed 1013 near its budget, and the reconnect from the
 * seq the reason names gets the rest, gap-free.
 */
import { evictDurableObject } from "cloudflare:test";
import { expect, it } from "vitest";
import { createThread, inThread, rawStub, request, until } from "../helpers.js";

const MIB = 1024 * 1024;
const BUDGET = 16 * MIB;
/** Data of one event: about 0.9 Mi characters, under a sixteenth of the budget. */
const BLOB = "x".repeat(900_000);

it("bursts each under a sixteenth of the budget, the object evicted between them, still close the connection at its budget", async () => {
  const id = await createThread();
  const start: number = await inThread(id, (t) => t.events.lastSeq());
  const res = await request(`/threads/${id}/ws?since=${start}`, { headers: { Upgrade: "websocket" } });
  const ws = res.webSocket!;
  const seqs: number[] = [];
  let chars = 0;
  let closed: { code: number; reason: string } | null = null;
  ws.addEventListener("message", (e) => {
    chars += (e.data as string).length;
    seqs.push((JSON.parse(e.data as string) as { seq: number }).seq);
  });
  ws.addEventListener("close", (e) => void (closed = { code: e.code, reason: e.reason }));
  ws.accept();
  let last = start;
  // 24 bursts of one event: about 21 Mi characters in all, past the budget.
  for (let i = 0; i < 24 && closed === null; i++) {
    last = await inThread(id, (t) => {
      t.world.emitCustom("custom.big", { i, blob: BLOB });
      return t.events.lastSeq() as number;
    });
    await until(async () => seqs.at(-1) === last || closed !== null, "the burst, or the close");
    await evictDurableObject(rawStub(id));
  }
  await until(async () => closed !== null, "the connection closed at its budget", 10_000);
  const { code, reason } = closed as unknown as { code: number; reason: string };
  expect(code).toBe(1013);
  expect(chars).toBeLessThan(BUDGET + MIB);
  const after = Number(/after seq (\d+)/.exec(reason)?.[1]);
  expect(seqs).toEqual(Array.from({ length: after - start }, (_, i) => start + 1 + i));
  const next = await request(`/threads/${id}/ws?since=${after}`, { headers: { Upgrade: "websocket" } });
  const rest: number[] = [];
  next.webSocket!.addEventListener("message", (e) => rest.push((JSON.parse(e.data as string) as { seq: number }).seq));
  next.webSocket!.accept();
  await until(async () => rest.length >= last - after, "the rest on the next connection");
  expect(rest).toEqual(Array.from({ length: last - after }, (_, i) => after + 1 + i));
  next.webSocket!.close(1000, "done");
}, 120_000);
