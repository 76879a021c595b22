/**
 * Review (events, weft/client): `onEvent` is called once per frame, in seq order, never with a
 * gap. With `batch=1` one message carries several frames; when the handler throws on one of them,
 * the frames after it in the same message must still be delivered (the exception is the
 * handler's, reported, not a reason to drop the rest). Before, they were skipped: the subscription
 * had counted the throwing frame delivered, so they came only after some later frame arrived, a
 * hole was seen and a reconnect asked for them; on an idle thread, never.
 */
import { expect, it } from "vitest";
import { WeftClient } from "weft/client";
import { fakeSocket } from "../client/fake-socket.js";

it("a handler that throws on one frame of a batch still gets the frames after it", async () => {
  const urls: string[] = [];
  const fetch = (async () => Response.json({ threadId: "t1", status: "idle", createdAt: 1000, lastSeq: 3 })) as typeof globalThis.fetch;
  const frame = (seq: number) => ({ seq, type: "custom.tick", data: { seq }, at: "2026-01-01T00:00:00.000Z" });
  const Socket = fakeSocket(urls, (socket) => {
    socket.open();
    const since = Number(new URL(socket.url).searchParams.get("since"));
    socket.message(JSON.stringify([frame(1), frame(2), frame(3)].filter((f) => f.seq > since)));
  });
  const reported: unknown[] = [];
  const onError = (e: unknown) => void reported.push(e);
  process.on("uncaughtException", onError);
  const delivered: number[] = [];
  const weft = new WeftClient({ url: "http://weft.test", token: "k", WebSocket: Socket as never, fetch });
  const sub = weft.subscribe("t1", {
    onEvent: (f) => {
      delivered.push(f.seq);
      if (f.seq === 2) throw new Error("the app's handler failed");
    },
    reconnect: { minReconnectionDelay: 1, maxReconnectionDelay: 5, connectionTimeout: 50 },
  });
  for (let i = 0; i < 100 && delivered.length < 3; i++) await new Promise((r) => setTimeout(r, 10));
  sub.close();
  process.off("uncaughtException", onError);
  expect(delivered).toEqual([1, 2, 3]);
  expect(urls).toHaveLength(1);
});
