/**
 * Review (events, weft/client): a `since` no server can serve (negative, fractional, not a
 * number) is refused 400 by every connection (`GET /threads/:id/ws` takes a whole seq from 0 to
 * the newest). The subscription ends with that refusal, as it does for a `since` past the newest
 * seq, instead of reconnecting (and asking `GET /threads/:id`) without end and never telling
 * `onError`.
 */
import { expect, it } from "vitest";
import { WeftClient } from "weft/client";
import { fakeSocket } from "../client/fake-socket.js";

const quick = { minReconnectionDelay: 1, maxReconnectionDelay: 5, connectionTimeout: 50 };

for (const since of [-1, 2.5, Number.NaN]) {
  it(`since ${since} ends the subscription with 400 invalid_request`, async () => {
    const urls: string[] = [];
    const errors: string[] = [];
    const fetch = (async () => Response.json({ threadId: "t1", status: "idle", createdAt: 1000, lastSeq: 50 })) as typeof globalThis.fetch;
    // The thread's socket route: a since that is not a whole seq up to the newest is refused.
    const Socket = fakeSocket(urls, (socket) => {
      const raw = new URL(socket.url).searchParams.get("since") ?? "";
      if (!/^\d{1,15}$/.test(raw) || Number(raw) > 50) return socket.fail();
      socket.open();
    });
    const weft = new WeftClient({ url: "http://weft.test", token: "k", WebSocket: Socket as never, fetch });
    const sub = weft.subscribe("t1", { since, onEvent: () => {}, onError: (e) => errors.push(`${e.status} ${e.code}`), reconnect: quick });
    const ended = await Promise.race([sub.closed.then(() => "ended"), new Promise((r) => setTimeout(() => r("still retrying"), 1500))]);
    sub.close();
    expect({ ended, errors, connections: sub.connections }).toEqual({ ended: "ended", errors: ["400 invalid_request"], connections: 0 });
  });
}
