/**
 * A socket opened in the middle of a burst (inside the same JS run as the emits
 * around it) gets every frame exactly once in seq order, as do the sockets open before; a batched
 * one gets arrays. Also a socket opened with `?since=` in the middle of the burst (a probe of
 * hostile review 20b, kept).
 */
import { expect, it } from "vitest";
import { CALLER_HEADER } from "../../src/thread/api.js";
import { createThread, inThread, subscribe } from "../helpers.js";

function collect(ws: WebSocket): { seqs: number[]; arrays: number } {
  const out = { seqs: [] as number[], arrays: 0 };
  ws.accept();
  ws.addEventListener("message", (e) => {
    const m = JSON.parse(e.data as string) as { seq: number } | Array<{ seq: number }>;
    if (Array.isArray(m)) out.arrays++;
    for (const f of Array.isArray(m) ? m : [m]) out.seqs.push(f.seq);
  });
  return out;
}

it("sockets opened mid-burst, batched or not, with or without since, get every frame once in order", async () => {
  const id = await createThread({ agent: "guarantees" });
  const a = await subscribe(id, 0, true);
  const b = await subscribe(id, 0);
  await a.until((f) => f.length >= 1);
  const { c, d, last } = await inThread(id, async (t) => {
    const caller = { userId: t.world.meta.userId, name: t.world.meta.userId, roles: [], admin: false };
    const open = (q: string) => {
      const req = new Request(`https://x/threads/${id}/ws${q}`, { headers: { Upgrade: "websocket", [CALLER_HEADER]: JSON.stringify(caller) } });
      return t.fetch(req) as Promise<Response>;
    };
    for (let i = 0; i < 5; i++) t.world.emitCustom("custom.one", { i });
    const pc = open("?batch=1");
    await Promise.resolve();
    for (let i = 0; i < 5; i++) t.world.emitCustom("custom.two", { i });
    const since = t.events.lastSeq() - 3;
    const pd = open(`?since=${since}`);
    for (let i = 0; i < 5; i++) {
      await null;
      t.world.emitCustom("custom.three", { i });
    }
    const [rc, rd] = await Promise.all([pc, pd]);
    return { c: collect(rc.webSocket!), d: { since, ...collect(rd.webSocket!) }, last: t.events.lastSeq() as number };
  });
  const all = Array.from({ length: last }, (_, i) => i + 1);
  await a.until((f) => f.some((x) => x.seq === last));
  await b.until((f) => f.some((x) => x.seq === last));
  await new Promise((r) => setTimeout(r, 200));
  expect(a.frames.map((f) => f.seq)).toEqual(all);
  expect(b.frames.map((f) => f.seq)).toEqual(all);
  expect(c.seqs).toEqual(all);
  expect(d.seqs).toEqual(all.filter((s) => s > d.since));
  expect(c.arrays).toBeGreaterThan(0);
  a.close();
  b.close();
});
