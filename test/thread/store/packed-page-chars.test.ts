/**
 * A page of the event log stops at its character budget (`EventLog.since`'s `maxChars`), the
 * first frame always coming: a replay holds one bounded page at a time, and a connection is sent
 * at most one frame past its budget (src/thread/sockets.ts). Events stored by one statement share
 * a row (src/event-rows.ts); the page must still end at the event that reaches the budget, not at
 * the end of its row (found by a review of packed rows: a page of a 1,500-character budget held
 * the 16 events of one row, 16,000 characters).
 */
import { expect, it } from "vitest";
import type { EventFrame } from "../../../src/protocol.js";
import { replayAndAccept } from "../../../src/thread/sockets.js";
import { createThread, inThread } from "../../helpers.js";

/** Stores 16 events of about 1,000 characters of data each, in one statement (one row). */
function storeRow(instance: any): number {
  const before = instance.ctx.storage.sql.exec("SELECT COUNT(*) AS n FROM events").one().n as number;
  for (let i = 0; i < 16; i++) instance.events.hold("custom.page", { i, blob: "x".repeat(1_000) });
  instance.store.events.settle();
  const after = instance.ctx.storage.sql.exec("SELECT COUNT(*) AS n FROM events").one().n as number;
  return after - before;
}

it("a page ends at the event of a packed row that reaches its character budget", async () => {
  const id = await createThread();
  const page = await inThread(id, (i) => {
    const rows = storeRow(i);
    const last = i.store.events.lastSeq() as number;
    const seqs = (after: number, maxChars: number) => i.store.events.since(after, 100, maxChars).map((f: EventFrame) => f.seq);
    return { rows, last, fromStart: seqs(last - 16, 1_500), inside: seqs(last - 10, 1_500), one: seqs(last - 16, 1), all: seqs(last - 16, Infinity) };
  });
  expect(page.rows).toBe(1);
  const first = page.last - 15;
  expect(page.fromStart).toEqual([first, first + 1]);
  expect(page.inside).toEqual([first + 6, first + 7]);
  expect(page.one).toEqual([first]);
  expect(page.all).toHaveLength(16);
});

it("a replay over a packed row sends at most one frame past the connection's budget", async () => {
  const id = await createThread();
  const sent = await inThread(id, async (i) => {
    storeRow(i);
    const request = new Request(`https://weft.test/threads/${id}/ws`, { headers: { Upgrade: "websocket" } });
    const res = replayAndAccept(i.ctx, i.events, request, 0, 3_000);
    const ws = res.webSocket!;
    const texts: string[] = [];
    ws.addEventListener("message", (e) => void texts.push(e.data as string));
    ws.accept();
    await new Promise((resolve) => setTimeout(resolve, 50));
    ws.close(1000, "done");
    return texts.map((t) => t.length);
  });
  // The budget is reached by the last frame sent, not before it.
  const total = sent.reduce((n, c) => n + c, 0);
  expect(total).toBeGreaterThanOrEqual(3_000);
  expect(total - sent.at(-1)!).toBeLessThan(3_000);
});
