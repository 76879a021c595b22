/**
 * `WeftClient.calls`: every call record of a thread, page by page over `GET /threads/:id/calls`
 * (`limit` and `offset`), until a page says no more follow.
 */
import { expect, it } from "vitest";
import { WeftClient } from "weft/client";

it("reads pages of pageSize from offset 0 until hasMore is false, passing status on", async () => {
  const asked: string[] = [];
  const all = ["a", "b", "c", "d", "e"].map((callId) => ({ callId, status: "succeeded" }));
  const fetch = (async (url: string) => {
    const u = new URL(url);
    asked.push(`${u.pathname}${u.search}`);
    const offset = Number(u.searchParams.get("offset")), limit = Number(u.searchParams.get("limit"));
    return Response.json({ calls: all.slice(offset, offset + limit), hasMore: offset + limit < all.length });
  }) as unknown as typeof globalThis.fetch;
  const weft = new WeftClient({ url: "http://weft.test", fetch });
  const seen: string[] = [];
  for await (const c of weft.calls("t1", { status: "succeeded", pageSize: 2 })) seen.push(c.callId);
  expect(seen).toEqual(["a", "b", "c", "d", "e"]);
  expect(asked).toEqual([0, 2, 4].map((offset) => `/threads/t1/calls?status=succeeded&limit=2&offset=${offset}`));
});
