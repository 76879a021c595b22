/**
 * A subscriber's replay reads the log a page at a time, bounded by characters as well as frames:
 * events are up to 1 MiB each and the log is kept whole, so a page of 5000 rows could hold far
 * more than a Durable Object's 128 MB (found by a hostile review: one read held 130 MiB of a
 * 130-event log, and every reconnect of a client would have reset the object). Every frame still
 * arrives once, in order, a part of about 16 Mi characters per connection: the socket is then
 * closed 1013 (Try Again Later) and the next connection goes on after its last frame, since what a
 * socket is sent waits in the object until it goes.
 */
import { expect, it } from "vitest";
import { createThread, inThread, request } from "../helpers.js";

const MIB = 1024 * 1024;

it("a replay of a log of large events holds one bounded page at a time, and sends every frame once, in order", async () => {
  const id = await createThread();
  const ROWS = 40;
  await inThread(id, (instance) => {
    const text = JSON.stringify({ blob: "x".repeat(MIB - 64) });
    for (let i = 0; i < ROWS; i++) instance.store.events.append("progress", null, Date.now(), text);
    // How many characters of frames each replay read holds at once.
    const sink = instance.events;
    const original = sink.since.bind(sink);
    (globalThis as { replayReads?: number[] }).replayReads = [];
    sink.since = (after: number, limit?: number, maxChars?: number) => {
      const frames = original(after, limit, maxChars);
      (globalThis as { replayReads?: number[] }).replayReads!.push(frames.reduce((n: number, f: unknown) => n + JSON.stringify(f).length, 0));
      return frames;
    };
  });
  const last: number = await inThread(id, (instance) => instance.events.lastSeq());
  // Each connection replays a part (about 16 Mi characters) and closes with 1013; the next goes on from its last frame.
  const seqs: number[] = [];
  const closes: number[] = [];
  while (seqs.at(-1) !== last) {
    const res = await request(`/threads/${id}/ws?since=${seqs.at(-1) ?? 0}`, { headers: { Upgrade: "websocket" } });
    expect(res.status).toBe(101);
    const ws = res.webSocket!;
    const closed = new Promise<number>((resolve) => ws.addEventListener("close", (e) => resolve(e.code)));
    ws.addEventListener("message", (e) => void seqs.push(JSON.parse(e.data as string).seq));
    ws.accept();
    const code = await Promise.race([closed, new Promise<number>((resolve) => {
      const check = () => (seqs.at(-1) === last ? resolve(0) : setTimeout(check, 10));
      check();
    })]);
    closes.push(code);
    if (code === 0) ws.close(1000, "done");
  }
  expect(seqs).toEqual(Array.from({ length: last }, (_, i) => i + 1));
  // 40 MiB of frames, at most one frame past 16 Mi characters a connection: two parts closed "try
  // again later", the third open with live frames to come.
  expect(closes).toEqual([1013, 1013, 0]);
  const reads = await inThread(id, () => (globalThis as { replayReads?: number[] }).replayReads ?? []);
  expect(reads.length).toBeGreaterThan(1);
  expect(Math.max(...reads)).toBeLessThanOrEqual(6 * MIB);
}, 120_000);
