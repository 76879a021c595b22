/**
 * `GET /account/waiting`, a person's inbox: the calls that wait for them (an approval, a client
 * tool's parked call) across their own threads and no one else's, paged over their thread index,
 * read fresh from each thread (an approved call is gone at once), a thread that is gone named in
 * `problems` instead of failing the page, a thread with more than a page holds named in `more`,
 * and a bad limit or cursor refused naming it.
 */
import { env } from "cloudflare:workers";
import { expect, it } from "vitest";
import { accountOf } from "../../src/account/api.js";
import { WAITING_PER_THREAD } from "../../src/http/waiting.js";
import { request, stubOf } from "../helpers.js";
import { freshUser, send } from "../usage/users.js";

/** A user with three threads: one waits for approval of `pay`, one for the client's answer to `pick`, one waits for nothing. */
async function userWithThreads() {
  const user = await freshUser("waiting");
  const thread = async (agent: string, script?: unknown[]) => {
    const made = await send(user.token, "POST", "/threads", { agent });
    expect(made.status).toBe(201);
    const id: string = made.body.threadId;
    if (script) await send(user.token, "POST", `/threads/${id}/messages`, { content: "go", script });
    await stubOf(id).waitIdle();
    return id;
  };
  const approving = await thread("guarantees", [{ toolCalls: [{ id: "pay", name: "needs_ok", arguments: { amount: 500 } }] }, { text: "paid" }]);
  const parked = await thread("browser", [{ toolCalls: [{ id: "pick", name: "pick_file", arguments: { prompt: "Pick the report" } }] }, { text: "got it" }]);
  const idle = await thread("guarantees", [{ text: "nothing to do" }]);
  return { ...user, approving, parked, idle };
}

/** Every page of the inbox, `limit` threads a page. */
async function allPages(token: string, limit?: number) {
  const pages: any[] = [];
  for (let cursor: string | null = null; ; ) {
    const query = new URLSearchParams({ ...(limit ? { limit: String(limit) } : {}), ...(cursor ? { cursor } : {}) });
    const page = await send(token, "GET", `/account/waiting?${query}`);
    expect(page.status, JSON.stringify(page.body)).toBe(200);
    pages.push(page.body);
    cursor = page.body.nextCursor;
    if (cursor === null) return pages;
  }
}

const keyOf = (c: { threadId: string; callId: string; status: string }) => `${c.threadId}/${c.callId}:${c.status}`;

it("lists a user's own waiting calls, never another's (an admin's neither); pages visit each thread once; an approved call leaves it", async () => {
  const a = await userWithThreads();
  const b = await userWithThreads();

  const [page] = await allPages(a.token);
  expect(page.calls).toEqual([
    { threadId: a.parked, agentId: "browser", callId: "pick", toolName: "pick_file", status: "parked", reason: "waiting for the client's answer (a client tool)", since: expect.any(Number) },
    { threadId: a.approving, agentId: "guarantees", callId: "pay", toolName: "needs_ok", status: "awaiting_approval", since: expect.any(Number) },
  ]);
  expect([page.problems, page.more, page.nextCursor]).toEqual([[], [], null]);
  // A call's input is not shown here: only what names it and why it waits.
  expect(JSON.stringify(page)).not.toContain("Pick the report");
  expect((await allPages(b.token))[0].calls.map(keyOf)).toEqual([`${b.parked}/pick:parked`, `${b.approving}/pay:awaiting_approval`]);
  // An admin too sees only their own threads here.
  const admin = await (await request("/account/waiting", {}, "root")).text();
  for (const id of [a.approving, a.parked, b.approving, b.parked]) expect(admin).not.toContain(id);

  // One thread a page: three pages, the idle thread's empty, each call once.
  const paged = await allPages(a.token, 1);
  expect(paged.map((p) => p.calls.map(keyOf))).toEqual([[], [`${a.parked}/pick:parked`], [`${a.approving}/pay:awaiting_approval`]]);

  expect((await send(a.token, "POST", `/threads/${a.approving}/calls/pay/approve`, {})).status).toBe(200);
  expect((await allPages(a.token))[0].calls.map(keyOf)).toEqual([`${a.parked}/pick:parked`]);
});

it("a direct call kept in its scratch thread while it waits for approval is in the inbox", async () => {
  const { token } = await freshUser("waiting");
  const direct = await send(token, "POST", "/v1/tools/needs_ok", { input: { amount: 500 } });
  expect([direct.status, direct.body.status]).toEqual([202, "awaiting_approval"]);
  const [page] = await allPages(token);
  expect(page.calls).toEqual([expect.objectContaining({ threadId: direct.body.sessionId, callId: direct.body.callId, toolName: "needs_ok", status: "awaiting_approval" })]);
});

it("a deleted thread drops out, and one the index lists that is gone is named in problems, not a 500", async () => {
  const a = await userWithThreads();
  expect((await send(a.token, "DELETE", `/threads/${a.parked}`)).status).toBe(200);
  const ns = (env as unknown as { THREAD: DurableObjectNamespace; ACCOUNT: DurableObjectNamespace });
  const gone = ns.THREAD.newUniqueId().toString();
  await accountOf(ns.ACCOUNT, a.userId).addThread({ threadId: gone, agentId: "guarantees", createdAt: Date.now() }, Number.MAX_SAFE_INTEGER);

  const [page] = await allPages(a.token);
  expect(page.calls.map(keyOf)).toEqual([`${a.approving}/pay:awaiting_approval`]);
  expect(page.problems).toEqual([{ threadId: gone, code: "thread_not_found", message: expect.any(String) }]);
});

it("a thread with more waiting calls than a page shows gives its oldest and is named in more", async () => {
  const { token } = await freshUser("waiting");
  const id: string = (await send(token, "POST", "/threads", { agent: "guarantees" })).body.threadId;
  const toolCalls = Array.from({ length: WAITING_PER_THREAD + 1 }, (_, i) => ({ id: `pay${String(i).padStart(3, "0")}`, name: "needs_ok", arguments: { amount: 500 + i } }));
  await send(token, "POST", `/threads/${id}/messages`, { content: "pay them all", script: [{ toolCalls }, { text: "paid" }] });
  await stubOf(id).waitIdle();
  const [page] = await allPages(token);
  expect(page.calls.map((c: { callId: string }) => c.callId)).toEqual(toolCalls.slice(0, WAITING_PER_THREAD).map((c) => c.id));
  expect(page.more).toEqual([id]);
});

it("a limit outside 1 to 50 or a cursor no page handed out is refused with invalid_request naming it", async () => {
  const { token } = await freshUser("waiting");
  for (const [query, path] of [["limit=0", "limit"], ["limit=51", "limit"], ["limit=x", "limit"], ["cursor=nope", "cursor"], ["cursor=", "cursor"]] as const) {
    const res = await send(token, "GET", `/account/waiting?${query}`);
    expect(res.status, query).toBe(400);
    expect(res.body.error.code, query).toBe("invalid_request");
    expect(res.body.error.details.path, query).toEqual([path]);
  }
});
