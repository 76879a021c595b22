/**
 * A page of messages or calls goes whole in one RPC answer, which Cloudflare caps at 32 MiB (local
 * workerd too). A thread's messages may each hold a megabyte (a pasted document, a tool call's
 * arguments), so 41 of them made `GET /threads/:id/messages?limit=1000`, `GET /threads/:id/chat`
 * (useChat's history, always 1000) and `GET /threads/:id/calls` answer 500 for good (hostile review).
 */
import { expect, it } from "vitest";
import { createThread, growHistory, inThread, json, rowsReadBy, stubOf } from "../helpers.js";

const MB = 1000 * 1000;

/** A thread with 41 turns, each a 0.9 MB tool call's arguments (its assistant message and its call row). */
async function bigThread(): Promise<string> {
  const id = await createThread({ agent: "robustness" });
  const posted = await json("POST", `/threads/${id}/messages`, { content: "go", script: [{ toolCalls: [{ id: "c1", name: "record_call", arguments: { note: "n".repeat(0.9 * MB) } }] }, { text: "ok" }] });
  expect(posted.status).toBe(202);
  await stubOf(id).waitIdle();
  await growHistory(id, 40);
  return id;
}

it("a page of large messages is cut by bytes, says hasMore, and paging reads every message once", async () => {
  const id = await bigThread();
  const first = await json("GET", `/threads/${id}/messages?limit=1000`);
  expect(first.status).toBe(200);
  expect(first.body.hasMore).toBe(true);
  expect(first.body.messages.length).toBeLessThan(first.body.total);
  const ids: number[] = [];
  for (let offset = 0; ; ) {
    const page = await json("GET", `/threads/${id}/messages?limit=1000&offset=${offset}`);
    expect(page.status).toBe(200);
    ids.push(...page.body.messages.map((m: { id: number }) => m.id));
    offset += page.body.messages.length;
    if (!page.body.hasMore) break;
  }
  expect(ids.length).toBe(first.body.total);
  expect(new Set(ids).size).toBe(ids.length);
  // The same by cursor, newest first.
  const back = await json("GET", `/threads/${id}/messages?limit=1000&order=desc&before=${ids.at(-1)! + 1}`);
  expect(back.status).toBe(200);
  expect(back.body.hasMore).toBe(true);
  expect(back.body.messages[0].id).toBe(ids.at(-1));
});

it("useChat's history of such a thread loads: its newest messages, hasMore", async () => {
  const id = await bigThread();
  const chat = await json("GET", `/threads/${id}/chat`);
  expect(chat.status).toBe(200);
  expect(chat.body.hasMore).toBe(true);
  expect(chat.body.messages.length).toBeGreaterThan(0);
});

it("the calls list of such a thread answers a page, says hasMore, and pages on with offset", async () => {
  const id = await bigThread();
  const ids: string[] = [];
  for (let offset = 0; ; ) {
    const page = await json("GET", `/threads/${id}/calls?offset=${offset}`);
    expect(page.status).toBe(200);
    ids.push(...page.body.calls.map((c: { callId: string }) => c.callId));
    offset += page.body.calls.length;
    if (!page.body.hasMore) break;
    expect(page.body.calls.length).toBeGreaterThan(0);
  }
  expect(ids.length).toBe(41);
  expect(new Set(ids).size).toBe(41);
});

it("a page of calls reads no row past its bytes: a thread's memory holds one page, not 1000 calls", async () => {
  const id = await bigThread();
  const page = (await json("GET", `/threads/${id}/calls`)).body;
  expect(page.hasMore).toBe(true);
  // Rows the list's statement read: the page's, the one that did not fit, and the one SQLite steps to after it.
  const read = await inThread(id, (instance: any) =>
    rowsReadBy(instance.ctx.storage.sql as SqlStorage, () => {
      let taken = 0;
      for (const _call of instance.ledger.list(1001, 0)) if (++taken > page.calls.length) break;
    }),
  );
  expect(read).toBeLessThanOrEqual(page.calls.length + 2);
});
