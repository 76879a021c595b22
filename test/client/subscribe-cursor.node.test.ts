/**
 * A subscription's cursor belongs to one thread on its id: a thread removed and made again there
 * starts its seqs over. weft/client learns the followed thread's `createdAt`, sends it with each
 * connection (the server refuses a cursor of another thread), and ends the subscription when the
 * thread that answers is another one or has no frame at the cursor, instead of reconnecting
 * forever (found by a hostile review: a 400 refusal of `since` was retried without end).
 */
import { expect, it } from "vitest";
import { WeftClient } from "weft/client";
import { fakeSocket } from "./fake-socket.js";

const quick = { minReconnectionDelay: 1, maxReconnectionDelay: 5, connectionTimeout: 50 };

async function ending(thread: { createdAt: number; lastSeq: number }, options: { since: number; createdAt?: number }) {
  const urls: string[] = [];
  const errors: Array<{ code: string; status: number }> = [];
  const fetch = (async () => Response.json({ threadId: "t1", status: "idle", ...thread })) as typeof globalThis.fetch;
  const weft = new WeftClient({ url: "http://weft.test", token: "k", WebSocket: fakeSocket(urls, { refuse: true }) as never, fetch });
  const sub = weft.subscribe("t1", { ...options, onEvent: () => {}, onError: (e) => errors.push({ code: e.code, status: e.status }), reconnect: quick });
  const ended = await Promise.race([sub.closed.then(() => "ended"), new Promise((r) => setTimeout(() => r("still retrying"), 1500))]);
  sub.close();
  return { ended, errors, first: Object.fromEntries(new URL(urls[0]!).searchParams), createdAt: sub.createdAt };
}

it("a thread whose newest seq is below the cursor ends the subscription with 400 invalid_request", async () => {
  const got = await ending({ createdAt: 1000, lastSeq: 3 }, { since: 10 });
  expect(got).toMatchObject({ ended: "ended", errors: [{ code: "invalid_request", status: 400 }], first: { since: "10" }, createdAt: 1000 });
});

it("another thread made on the id since the cursor's ends it with 404 thread_not_found, and the cursor's thread goes with every connection", async () => {
  const got = await ending({ createdAt: 2000, lastSeq: 50 }, { since: 10, createdAt: 1000 });
  expect(got).toMatchObject({ ended: "ended", errors: [{ code: "thread_not_found", status: 404 }], first: { since: "10", createdAt: "1000" }, createdAt: 1000 });
});

it("the same thread, answering, is retried: the network or a restart refused the connection", async () => {
  const got = await ending({ createdAt: 1000, lastSeq: 50 }, { since: 10, createdAt: 1000 });
  expect(got).toMatchObject({ ended: "still retrying", errors: [] });
});
