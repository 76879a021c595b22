/**
 * A thread holds at most `WEFT_MAX_SOCKETS_PER_THREAD` open WebSocket subscriptions (8 in this
 * file's runtime, vitest.config.ts): every event is sent to every socket, so their number is
 * bounded like any kept connection. One more is refused 429 `too_many_sockets` before anything is
 * accepted; once one closes, the next opens. Found by a hostile review (there was no bound).
 */
import { expect, it } from "vitest";
import { createThread, request, until } from "../helpers.js";

const LIMIT = 8;

async function open(id: string): Promise<Response> {
  return request(`/threads/${id}/ws?since=0`, { headers: { Upgrade: "websocket" } });
}

it("the socket past the limit is refused 429 too_many_sockets; a closed one makes room", async () => {
  const id = await createThread();
  const sockets: WebSocket[] = [];
  for (let i = 0; i < LIMIT; i++) {
    const res = await open(id);
    expect(res.status).toBe(101);
    res.webSocket!.accept();
    sockets.push(res.webSocket!);
  }
  const over = await open(id);
  expect(over.status).toBe(429);
  expect(await over.json()).toMatchObject({ error: { code: "too_many_sockets", details: { limit: LIMIT } } });

  sockets.pop()!.close(1000, "done");
  await until(async () => {
    const res = await open(id);
    if (res.status !== 101) return false;
    res.webSocket!.accept();
    sockets.push(res.webSocket!);
    return true;
  }, "room for a socket once one closed", 10_000);
  for (const ws of sockets) ws.close(1000, "done");
});
