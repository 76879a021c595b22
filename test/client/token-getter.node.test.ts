/**
 * The typed client sends a token the same way on every path: an empty one is no token, over HTTP
 * and on the WebSocket alike (a `?access_token=` of "" is a token sent, which development mode
 * refuses, while the HTTP check behind a refused upgrade sent none and so saw no refusal).
 */
import { expect, it } from "vitest";
import { WeftClient } from "weft/client";
import { fakeSocket } from "./fake-socket.js";

it.each([
  ["no token", undefined, null],
  ["an empty token", "", null],
  ["a token", "k-1", "k-1"],
])("subscribe with %s puts access_token on the socket URL only when there is one", async (_name, token, expected) => {
  const urls: string[] = [];
  const weft = new WeftClient({
    url: "http://weft.test",
    ...(token !== undefined ? { token } : {}),
    WebSocket: fakeSocket(urls) as never,
    fetch: (async () => Response.json({})) as typeof fetch,
  });
  const sub = weft.subscribe("t1", { onEvent: () => {} });
  for (let i = 0; i < 50 && urls.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
  sub.close();
  expect(urls.length).toBeGreaterThan(0);
  expect(new URL(urls[0]!).searchParams.get("access_token")).toBe(expected);
});

it("subscribe asks its token getter before every connection, so a reconnect after a token expired sends a fresh one", async () => {
  const urls: string[] = [];
  let issued = 0;
  const weft = new WeftClient({ url: "http://weft.test", token: "stale", WebSocket: fakeSocket(urls) as never, fetch: (async () => Response.json({})) as typeof fetch });
  const sub = weft.subscribe("t1", { onEvent: () => {}, token: () => `fresh-${++issued}`, reconnect: { minReconnectionDelay: 1, maxReconnectionDelay: 5, connectionTimeout: 20 } });
  for (let i = 0; i < 200 && urls.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
  sub.close();
  expect(urls.length).toBeGreaterThanOrEqual(2);
  expect(urls.slice(0, 2).map((u) => new URL(u).searchParams.get("access_token"))).toEqual(["fresh-1", "fresh-2"]);
});
