/**
 * `WeftClient.waitingCalls`: every call that waits for the caller, page by page over
 * `GET /account/waiting` (`limit` threads a page, `cursor` on), until a page's `nextCursor` is null.
 */
import { expect, it } from "vitest";
import { WeftClient } from "weft/client";

it("follows nextCursor from the first page until it is null, passing pageSize as limit", async () => {
  const asked: string[] = [];
  const call = (threadId: string, callId: string) => ({ threadId, agentId: "a", callId, toolName: "pay", status: "awaiting_approval", since: 1 });
  const pages: Record<string, unknown> = {
    "": { calls: [call("t1", "c1"), call("t1", "c2")], problems: [], more: [], nextCursor: "k1" },
    k1: { calls: [], problems: [{ threadId: "t2", code: "thread_not_found", message: "gone" }], more: [], nextCursor: "k2" },
    k2: { calls: [call("t3", "c3")], problems: [], more: [], nextCursor: null },
  };
  const fetch = (async (url: string) => {
    const u = new URL(url);
    asked.push(`${u.pathname}${u.search}`);
    return Response.json(pages[u.searchParams.get("cursor") ?? ""]);
  }) as unknown as typeof globalThis.fetch;
  const weft = new WeftClient({ url: "http://weft.test", fetch });
  const seen: string[] = [];
  for await (const c of weft.waitingCalls({ pageSize: 2 })) seen.push(`${c.threadId}/${c.callId}`);
  expect(seen).toEqual(["t1/c1", "t1/c2", "t3/c3"]);
  expect(asked).toEqual(["/account/waiting?limit=2", "/account/waiting?limit=2&cursor=k1", "/account/waiting?limit=2&cursor=k2"]);
});
