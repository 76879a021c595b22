/**
 * A subscription's cursor belongs to one thread on its id: a thread removed and made again there
 * starts its seqs over. weft/client learns the followed thread's `createdAt`, sends it with each
 * connection (the server refuses a cursor of another thread), and ends the subscription when the
 * thread that answers is another one or has no frame at the cursor, instead of reconnecting
 * forever (found by a hostile review: a 400 refusal of `since` was retried without end).
 */
import { expect, it } from "vitest";
import { WeftClient } from "weft/client";
import { fakeSocket, refuseAll } from "./fake-socket.js";

const quick = { minReconnectionDelay: 1, maxReconnectionDelay: 5, connectionTimeout: 50 };

async function ending(thread: { createdAt: number; lastSeq: number }, options: { since: number; createdAt?: number }) {
  const urls: string[] = [];
  const errors: Array<{ code: string; status: number }> = [];
  const fetch = (async () => Response.json({ threadId: "t1", status: "idle", ...thread })) as typeof globalThis.fetch;
  const weft = new WeftClient({ url: "http://weft.test", token: "k", WebSocket: fakeSocket(urls, refuseAll) as never, fetch });
  const sub = weft.subscribe("t1", { ...options, onEvent: () => {}, onError: (e) => errors.push({ code: e.code, status: e.status }), reconnect: quick });
  const ended = await Promise.race([sub.closed.then(() => "ended"), new Promise((r) => setTimeout(() => r("still retrying"), 1500))]);
  sub.close();
  return { ended, errors, first: urls[0] === undefined ? null : Object.fromEntries(new URL(urls[0]).searchParams), createdAt: sub.createdAt };
}

it("a thread whose newest seq is below the cursor ends the subscription with 400 invalid_request, before any connection", async () => {
  const got = await ending({ createdAt: 1000, lastSeq: 3 }, { since: 10 });
  expect(got).toMatchObject({ ended: "ended", errors: [{ code: "invalid_request", status: 400 }], first: null });
});

it("another thread made on the id since the cursor's ends it with 404 thread_not_found, and the cursor's thread goes with every connection", async () => {
  const got = await ending({ createdAt: 2000, lastSeq: 50 }, { since: 10, createdAt: 1000 });
  expect(got).toMatchObject({ ended: "ended", errors: [{ code: "thread_not_found", status: 404 }], first: { since: "10", createdAt: "1000" }, createdAt: 1000 });
});

it("the same thread, answering, is retried: the network or a restart refused the connection", async () => {
  const got = await ending({ createdAt: 1000, lastSeq: 50 }, { since: 10, createdAt: 1000 });
  expect(got).toMatchObject({ ended: "still retrying", errors: [] });
});

it("no frame is taken before the followed thread is known: a first GET that fails is asked again, and a thread made again on the id later is not followed", async () => {
  let thread = { name: "T1", createdAt: 1000, frames: 3 };
  let gets = 0;
  const fetch = (async () => {
    gets++;
    if (gets === 1) return Response.json({ error: { code: "thread_restarted", message: "restarting" } }, { status: 503 });
    return Response.json({ threadId: "t1", status: "idle", createdAt: thread.createdAt, lastSeq: thread.frames });
  }) as typeof globalThis.fetch;
  // What the thread's socket route answers: another thread's cursor, or a since past the newest, is refused.
  const urls: string[] = [];
  const Socket = fakeSocket(urls, (socket) => {
    const params = new URL(socket.url).searchParams;
    const named = params.get("createdAt");
    const since = Number(params.get("since") ?? 0);
    if ((named !== null && Number(named) !== thread.createdAt) || since > thread.frames) return socket.fail();
    socket.open();
    const frames = Array.from({ length: thread.frames - since }, (_, i) => ({ seq: since + 1 + i, type: "custom", data: { thread: thread.name }, at: "2026-01-01T00:00:00Z" }));
    if (frames.length > 0) socket.message(JSON.stringify(frames));
  });
  const weft = new WeftClient({ url: "http://weft.test", token: "k", WebSocket: Socket as never, fetch });
  const delivered: string[] = [];
  const errors: string[] = [];
  const sub = weft.subscribe("t1", { onEvent: (f) => delivered.push(`${(f.data as { thread: string }).thread}#${f.seq}`), onError: (e) => errors.push(e.code), reconnect: { ...quick, connectionTimeout: 200, minUptime: 1 } });
  while (delivered.length < 3) await new Promise((r) => setTimeout(r, 5));
  expect(new URL(urls[0]!).searchParams.get("createdAt")).toBe("1000");
  // The thread is removed (its sockets closed, 1000) and made again on its id, with frames of its own.
  thread = { name: "T2", createdAt: 2000, frames: 5 };
  Socket.last!.close(1000, "thread deleted");
  await sub.closed;
  expect({ delivered, errors, createdAt: sub.createdAt }).toEqual({ delivered: ["T1#1", "T1#2", "T1#3"], errors: ["thread_not_found"], createdAt: 1000 });
});

it("a 429 or 408 on the way to the thread is retried, not the end of the subscription (review 22g)", async () => {
  for (const status of [429, 408]) {
    let gets = 0;
    const fetch = (async () => (++gets === 1 ? new Response("slow down", { status }) : Response.json({ threadId: "t1", status: "idle", createdAt: 1000, lastSeq: 0 }))) as typeof globalThis.fetch;
    const urls: string[] = [];
    const weft = new WeftClient({ url: "http://weft.test", token: "k", WebSocket: fakeSocket(urls, (s) => s.open()) as never, fetch });
    const errors: string[] = [];
    const sub = weft.subscribe("t1", { onEvent: () => {}, onError: (e) => errors.push(`${e.status} ${e.code}`) });
    for (let i = 0; i < 100 && urls.length === 0 && errors.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    sub.close();
    expect({ status, errors, connected: urls.length > 0 }).toEqual({ status, errors: [], connected: true });
  }
});

it("frames past a hole, again and again, are asked for again after waits that grow, not in a tight loop (review 22g)", async () => {
  const fetch = (async () => Response.json({ threadId: "t1", status: "idle", createdAt: 1000, lastSeq: 10 })) as typeof globalThis.fetch;
  const urls: string[] = [];
  const Socket = fakeSocket(urls, (s) => {
    s.open();
    s.message(JSON.stringify({ seq: 5, type: "x", data: {}, at: 0 }));
  });
  const weft = new WeftClient({ url: "http://weft.test", token: "k", WebSocket: Socket as never, fetch });
  const sub = weft.subscribe("t1", { onEvent: () => {} });
  await new Promise((r) => setTimeout(r, 1000));
  sub.close();
  // Waits of 100, 200, 400 ms...: a handful of connections in a second (a tight loop made hundreds).
  expect(urls.length).toBeGreaterThan(1);
  expect(urls.length).toBeLessThan(6);
  expect(urls.every((u) => new URL(u).searchParams.get("since") === "0")).toBe(true);
});

