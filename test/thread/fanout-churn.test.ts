/**
 * Sockets opened (plain and batched, replaying from random cursors) and closed between bursts of
 * emits, in timer tasks racing the fan-out's sends: every socket gets a gap-free, duplicate-free run
 * of seqs from its cursor (a probe of hostile review 20a, kept).
 */
import { expect, it } from "vitest";
import type { EventFrame } from "../../src/protocol.js";
import { CALLER_HEADER } from "../../src/thread/api.js";
import { createThread, eventsOf, inThread } from "../helpers.js";

const owner = { userId: "tester", name: "tester", roles: [], admin: false };

it("sockets churning between bursts each get every frame from their cursor once, in order", async () => {
  const id = await createThread({ agent: "guarantees" });
  const result = await inThread(id, async (t) => {
    type S = { since: number; batch: boolean; seqs: number[]; ws: WebSocket; closedAt: number | null };
    const socks: S[] = [];
    let rnd = 12345;
    const rand = (n: number) => ((rnd = (rnd * 1103515245 + 12345) % 2 ** 31), rnd % n);
    const open = async () => {
      const last = t.events.lastSeq();
      const since = rand(last + 1);
      const batch = rand(2) === 1;
      const res: Response = await t.fetch(new Request(`http://thread/threads/${id}/ws?since=${since}${batch ? "&batch=1" : ""}`, { headers: { Upgrade: "websocket", [CALLER_HEADER]: JSON.stringify(owner) } }));
      const ws = res.webSocket!;
      const s: S = { since, batch, seqs: [], ws, closedAt: null };
      ws.accept();
      ws.addEventListener("message", (e) => {
        const m = JSON.parse(e.data as string) as EventFrame | EventFrame[];
        for (const f of Array.isArray(m) ? m : [m]) s.seqs.push(f.seq);
      });
      socks.push(s);
    };
    for (let round = 0; round < 60; round++) {
      const n = 1 + rand(20);
      for (let i = 0; i < n; i++) {
        t.world.emitCustom("custom.churn", { round, i });
        if (rand(7) === 0) t.events.lastSeq();
        if (rand(11) === 0) setTimeout(() => void open(), 0);
        if (rand(13) === 0 && socks.length > 0) {
          const s = socks[rand(socks.length)]!;
          if (s.closedAt === null) setTimeout(() => {
            s.closedAt = 1;
            try { s.ws.close(1000, "bye"); } catch {}
          }, 0);
        }
      }
      if (rand(3) === 0) await open();
      await new Promise((r) => setTimeout(r, rand(3)));
    }
    await new Promise((r) => setTimeout(r, 500));
    return socks.map((s) => ({ since: s.since, batch: s.batch, seqs: s.seqs, closed: s.closedAt !== null }));
  });
  const last = (await eventsOf(id)).at(-1)!.seq;
  const bad = result.filter((s) => {
    const want = Array.from({ length: last - s.since }, (_, i) => s.since + 1 + i);
    return s.closed ? JSON.stringify(s.seqs) !== JSON.stringify(want.slice(0, s.seqs.length)) : JSON.stringify(s.seqs) !== JSON.stringify(want);
  });
  console.log("sockets", result.length, "last", last, "bad", bad.length);
  expect(bad.map((s) => ({ since: s.since, batch: s.batch, closed: s.closed, head: s.seqs.slice(0, 5), n: s.seqs.length }))).toEqual([]);
}, 120_000);
