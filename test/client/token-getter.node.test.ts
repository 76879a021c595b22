/**
 * The typed client sends a token the same way on every path: an empty one is no token, over HTTP
 * and on the WebSocket alike (a token subprotocol of "" is a token sent, which development mode
 * refuses, while the HTTP check behind a refused upgrade sent none and so saw no refusal). On the
 * WebSocket it goes as a subprotocol, never in the URL, which request logs keep.
 */
import { expect, it } from "vitest";
import { WeftClient } from "weft/client";
import { tokenOfProtocol } from "../../src/socket-token.js";
import { fakeSocket } from "./fake-socket.js";

/** The token a connection's offered subprotocols carry, after `weft`; undefined when it offered none. */
const tokenOffered = (offered: string | string[] | undefined) => {
  if (offered === undefined) return undefined;
  const [first, carrier, ...rest] = [offered].flat();
  expect([first, rest]).toEqual(["weft", []]);
  return tokenOfProtocol(carrier!);
};

it.each([
  ["no token", undefined, undefined],
  ["an empty token", "", undefined],
  ["a token", "k-1", "k-1"],
  ["a token no subprotocol could hold as it is", "k/1 ä,=", "k/1 ä,="],
])("subscribe with %s offers it as a subprotocol only when there is one, and never in the URL", async (_name, token, expected) => {
  const urls: string[] = [];
  const offered: Array<string | string[] | undefined> = [];
  const weft = new WeftClient({
    url: "http://weft.test",
    ...(token !== undefined ? { token } : {}),
    WebSocket: fakeSocket(urls, undefined, offered) as never,
    fetch: (async () => Response.json({})) as typeof fetch,
  });
  const sub = weft.subscribe("t1", { onEvent: () => {} });
  for (let i = 0; i < 50 && urls.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
  sub.close();
  expect(urls.length).toBeGreaterThan(0);
  expect(tokenOffered(offered[0])).toBe(expected);
  expect(new URL(urls[0]!).searchParams.has("access_token")).toBe(false);
  if (token) expect(decodeURIComponent(urls[0]!)).not.toContain(token);
});

it("subscribe asks its token getter before every connection, so a reconnect after a token expired sends a fresh one", async () => {
  const urls: string[] = [];
  const offered: Array<string | string[] | undefined> = [];
  let issued = 0;
  const weft = new WeftClient({ url: "http://weft.test", token: "stale", WebSocket: fakeSocket(urls, undefined, offered) as never, fetch: (async () => Response.json({})) as typeof fetch });
  const sub = weft.subscribe("t1", { onEvent: () => {}, token: () => `fresh-${++issued}`, reconnect: { minReconnectionDelay: 1, maxReconnectionDelay: 5, connectionTimeout: 20 } });
  for (let i = 0; i < 200 && urls.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
  sub.close();
  expect(urls.length).toBeGreaterThanOrEqual(2);
  expect(offered.slice(0, 2).map(tokenOffered)).toEqual(["fresh-1", "fresh-2"]);
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
  const offered: Array<string | string[] | undefined> = [];
  const weft = new WeftClient({ url: "http://weft.test", WebSocket: fakeSocket(urls, (s) => s.open(), offered) as never, fetch });
  const errors: string[] = [];
  const sub = weft.subscribe("t1", { onEvent: () => {}, onError: (e) => errors.push(`${e.status} ${e.code}`), token: () => `tok-${++issued}` });
  for (let i = 0; i < 300 && urls.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
  sub.close();
  expect(errors).toEqual([]);
  expect(tokenOffered(offered[0])).toMatch(/^tok-[2-9]$/);
});
