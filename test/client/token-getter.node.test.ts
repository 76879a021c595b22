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

it("a token that expired while the thread could not be asked is replaced by the getter's fresh one, not reported as 401 (review 22e)", async () => {
  let issued = 0;
  let gets = 0;
  const fetch = (async (_input: RequestInfo | URL, init?: RequestInit) => {
    gets++;
    // The network is down for the first three asks; meanwhile the first token expires.
    if (gets <= 3) throw new TypeError("fetch failed");
    if (new Headers(init?.headers).get("authorization") === "Bearer tok-1") return Response.json({ error: { code: "unauthenticated", message: "token expired" } }, { status: 401 });
    return Response.json({ threadId: "t1", status: "idle", createdAt: 1000, lastSeq: 0 });
  }) as typeof globalThis.fetch;
  const urls: string[] = [];
  const weft = new WeftClient({ url: "http://weft.test", WebSocket: fakeSocket(urls, (s) => s.open()) as never, fetch });
  const errors: string[] = [];
  const sub = weft.subscribe("t1", { onEvent: () => {}, onError: (e) => errors.push(`${e.status} ${e.code}`), token: () => `tok-${++issued}` });
  for (let i = 0; i < 300 && urls.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
  sub.close();
  expect(errors).toEqual([]);
  expect(new URL(urls[0]!).searchParams.get("access_token")).not.toBe("tok-1");
});
