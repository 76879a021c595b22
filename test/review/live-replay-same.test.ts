/**
 * Review (events): a frame is the same text live and replayed. Every frame on the wire is
 * `{ seq, type, data, at }` (docs/events.md); a client that reconnects is served the stored frame,
 * and one that stayed connected the live one: the two must not differ. A tool's `state.emit(name)`
 * without data is stored with `data: null` and replayed so, but went out live without `data`.
 */
import { expect, it } from "vitest";
import { createThread, inThread, request, subscribe } from "../helpers.js";

it("an event emitted without data reaches a live socket as the replay serves it: with data null", async () => {
  const id = await createThread();
  const live = await subscribe(id, 0);
  await live.until((f) => f.length >= 1);
  const raw: string[] = [];
  // The raw text of the live messages, to compare byte for byte.
  const since: number = await inThread(id, (t) => t.events.lastSeq());
  const ws = (await request(`/threads/${id}/ws?since=${since}`, { headers: { Upgrade: "websocket" } })).webSocket!;
  ws.accept();
  ws.addEventListener("message", (e) => void raw.push(e.data as string));
  const seq: number = await inThread(id, (t) => {
    t.world.emitCustom("custom.bare", undefined);
    return t.events.lastSeq();
  });
  await live.until((f) => f.some((x) => x.seq === seq));
  const replay = await subscribe(id, seq - 1);
  await replay.until((f) => f.some((x) => x.seq === seq));
  for (let i = 0; i < 100 && raw.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
  const replayed = replay.frames.find((f) => f.seq === seq)!;
  const shown = live.frames.find((f) => f.seq === seq)!;
  expect(replayed).toHaveProperty("data", null);
  expect(shown).toEqual(replayed);
  expect(JSON.parse(raw[0]!)).toEqual(replayed);
  live.close();
  replay.close();
  ws.close(1000, "done");
});
