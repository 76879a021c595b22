/**
 * A connection is sent about `WEFT_MAX_WS_CHARS_PER_CONNECTION` characters of frames (16 Mi by
 * default), replay and live together: then it is closed 1013 with a reason naming the last seq it
 * was sent, and the next connection from there gets the rest, gap-free. workerd keeps what a
 * socket is sent in a queue outside the JS heap until its client reads it, with no
 * `bufferedAmount` and no limit: a subscriber that never read grew workerd's memory by about
 * 11 MiB for each 5 MiB of events, without end (measured: 150k events of 1 KB, +400 MiB).
 */
import { expect, it } from "vitest";
import { createThread, inThread, request, until } from "../helpers.js";

const MIB = 1024 * 1024;
const BUDGET = 16 * MIB;
/** Data of one event: about 0.9 Mi characters, under the 1 MiB event limit. */
const BLOB = "x".repeat(900_000);

interface Connection {
  seqs: number[];
  /** Characters of the messages received. */
  chars: number;
  closed: Promise<{ code: number; reason: string }>;
}

async function connect(id: string, since: number, batch: boolean): Promise<Connection> {
  const res = await request(`/threads/${id}/ws?since=${since}${batch ? "&batch=1" : ""}`, { headers: { Upgrade: "websocket" } });
  expect(res.status).toBe(101);
  const ws = res.webSocket!;
  const out: Connection = { seqs: [], chars: 0, closed: new Promise((resolve) => ws.addEventListener("close", (e) => resolve({ code: e.code, reason: e.reason }))) };
  ws.addEventListener("message", (e) => {
    const text = e.data as string;
    out.chars += text.length;
    const m = JSON.parse(text) as { seq: number } | Array<{ seq: number }>;
    for (const f of Array.isArray(m) ? m : [m]) out.seqs.push(f.seq);
  });
  ws.accept();
  return out;
}

/** Emits `count` large events, `perBurst` in each synchronous run. */
function emit(id: string, count: number, perBurst: number): Promise<number> {
  return inThread(id, async (t) => {
    for (let i = 0; i < count; i++) {
      if (i % perBurst === 0) await new Promise((r) => setTimeout(r, 0));
      t.world.emitCustom("custom.big", { i, blob: BLOB });
    }
    return t.events.lastSeq() as number;
  });
}

/** Waits for the close, or 5 s after the last frame arrived (the code before this fix never closed). */
async function closeOf(c: Connection, last: number): Promise<{ code: number; reason: string }> {
  const quiet = new Promise<{ code: number; reason: string }>((resolve) => {
    const check = () => (c.seqs.at(-1) === last ? setTimeout(() => resolve({ code: 0, reason: "still open with every frame" }), 5_000) : setTimeout(check, 20));
    check();
  });
  return Promise.race([c.closed, quiet]);
}

for (const batch of [false, true]) {
  it(`live frames past the connection's budget close it 1013 naming the last seq sent; the next connection goes on gap-free${batch ? " (batch=1)" : ""}`, async () => {
    const id = await createThread();
    const start: number = await inThread(id, (t) => t.events.lastSeq());
    const first = await connect(id, start, batch);
    const last = await emit(id, 24, 4);
    const closed = await closeOf(first, last);
    expect(closed.code).toBe(1013);
    const after = Number(/after seq (\d+)/.exec(closed.reason)?.[1]);
    expect(first.seqs).toEqual(Array.from({ length: after - start }, (_, i) => start + 1 + i));
    // The budget, and at most one message (one event) past it.
    expect(first.chars).toBeGreaterThanOrEqual(BUDGET);
    expect(first.chars).toBeLessThan(BUDGET + MIB);
    const second = await connect(id, after, batch);
    await until(async () => second.seqs.at(-1) === last, "the rest on the next connection");
    expect(second.seqs).toEqual(Array.from({ length: last - after }, (_, i) => after + 1 + i));
  }, 120_000);
}

it("a connection's replay counts against the same budget as its live frames", async () => {
  const id = await createThread();
  const replayed = await emit(id, 10, 10);
  const first = await connect(id, 0, false);
  const last = await emit(id, 14, 1);
  const closed = await closeOf(first, last);
  expect(closed.code).toBe(1013);
  const after = Number(/after seq (\d+)/.exec(closed.reason)?.[1]);
  expect(after).toBeGreaterThan(replayed);
  expect(first.seqs).toEqual(Array.from({ length: after }, (_, i) => i + 1));
  expect(first.chars).toBeLessThan(BUDGET + MIB);
}, 120_000);

for (const batch of [false, true]) {
  it(`in one burst, a connection that reaches its budget is closed while another on the thread gets every frame${batch ? " (the other batch=1)" : ""}`, async () => {
    const id = await createThread();
    const start: number = await inThread(id, (t) => t.events.lastSeq());
    const early = await connect(id, start, false);
    const mid = await emit(id, 10, 10);
    await until(async () => early.seqs.at(-1) === mid, "the first burst on the early connection");
    const late = await connect(id, mid, batch);
    // One synchronous run: the early connection passes its budget partway through, the late one never.
    const last = await emit(id, 12, 12);
    const closed = await closeOf(early, last);
    expect(closed.code).toBe(1013);
    const after = Number(/after seq (\d+)/.exec(closed.reason)?.[1]);
    expect(after).toBeGreaterThan(mid);
    expect(after).toBeLessThan(last);
    expect(early.seqs).toEqual(Array.from({ length: after - start }, (_, i) => start + 1 + i));
    await until(async () => late.seqs.at(-1) === last, "the whole burst on the late connection");
    expect(late.seqs).toEqual(Array.from({ length: last - mid }, (_, i) => mid + 1 + i));
  }, 120_000);
}
