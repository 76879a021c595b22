/**
 * The typed client (`weft/client`) as an app would use it, in Node against `wrangler dev` with
 * authentication on (API keys): every HTTP method, and `subscribe` across many server-side drops
 * of its socket while a turn streams events. Also `GET /openapi.json` through an OpenAPI validator.
 */
import { Validator } from "@seriousme/openapi-schema-validator";
import { afterAll, beforeAll, expect, it } from "vitest";
import { WeftClient, WeftClientError, type EventFrame } from "weft/client";
import { API_KEYS } from "../keys.js";
import { busyScript, range1, sharedWeft, startProxy, type DevServer } from "./support.js";

let weft: DevServer;
let client: WeftClient;

beforeAll(async () => {
  // The fixtures' config as it stands: API keys and a JWT secret configured, so tokens count.
  weft = await sharedWeft("secured");
  client = new WeftClient({ url: weft.url, token: API_KEYS.tester });
});
afterAll(async () => {
  await weft?.stop();
});

// The bound is generous: the shared server may be busy with another file's threads (the fuzz) and
// the machine with a second npm test; a turn that ends returns at once.
async function waitIdle(threadId: string) {
  for (const deadline = Date.now() + 90_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 50))) {
    // A read that meets a restart answers 503 thread_restarted: ask again.
    const info = await client.getThread(threadId).catch((e: WeftClientError) => {
      if (e.code === "thread_restarted") return null;
      throw e;
    });
    if (info?.status === "idle") return info;
  }
  throw new Error(`thread ${threadId} still busy: ${JSON.stringify(await client.getThread(threadId))}`);
}

it("threads, messages page by page, direct calls, approve, deny and settle", async () => {
  const { threadId } = await client.createThread({});
  expect((await client.listThreads({ limit: 200 })).threads.map((t) => t.threadId)).toContain(threadId);

  await client.postMessage(threadId, { content: "go", script: busyScript(2, "pages") });
  const info = await waitIdle(threadId);
  const all = (await client.getMessages(threadId, { limit: 1000 })).messages;
  expect(all.length).toBe(info.messageCount);
  const paged = [];
  for await (const m of client.messages(threadId, { pageSize: 3 })) paged.push(m);
  expect(paged.map((m) => m.id)).toEqual(all.map((m) => m.id));

  const sum = await client.callTool("sum_range", { from: 1, to: 4 });
  expect(sum).toMatchObject({ ok: true, isError: false, toolName: "sum_range" });
  const refused = await client.callTool("person", { name: "Ada", age: "old" }).catch((e: unknown) => e);
  expect(refused).toBeInstanceOf(WeftClientError);
  expect(refused).toMatchObject({ code: "invalid_tool_input", status: 400, details: { path: ["age"] } });

  // Two calls that wait for approval in one session: approve one, deny the other.
  const waiting = await client.callTool("needs_ok", { amount: 500, label: "first" }, { continuationToken: "client:approvals" });
  expect(waiting.status).toBe("awaiting_approval");
  const session = waiting.sessionId!;
  expect((await client.listCalls(session, { status: "awaiting_approval" })).calls.map((c) => c.callId)).toEqual([waiting.callId]);
  const approved = await client.approve(session, waiting.callId);
  expect(approved).toMatchObject({ status: "succeeded" });
  expect(await client.getCall(session, waiting.callId)).toMatchObject({ status: "succeeded", approvedBy: "tester" });
  const second = await client.callTool("needs_ok", { amount: 700 }, { sessionId: session });
  expect(await client.deny(session, second.callId, { reason: "too much" })).toMatchObject({ status: "denied" });
  // Only a parked call can be settled: the route answers that with its own error code.
  const settle = await client.settle(session, second.callId, { outcome: "succeeded", result: "done" }).catch((e: unknown) => e);
  expect(settle).toMatchObject({ code: "call_not_waiting", status: 409 });

  expect(await client.deleteThread(threadId)).toEqual({ deleted: true });
  await expect(client.getThread(threadId)).rejects.toMatchObject({ code: "thread_not_found", status: 404 });
});

/**
 * Subscribes through `subscriber` (requests go through the plain client) and posts a turn of
 * `maxDrops` + 1 steps whose events keep flowing (a 150 ms read beside two quick ones in each).
 * Each of the first `maxDrops` steps also asks a person to approve a transfer: when that request
 * reaches the subscriber, the test calls `drop()` under the connection it came on and then
 * approves, so the turn goes on, and its events come, only once that connection is gone. Exactly
 * `maxDrops` drops then, each of its own connection, however slow the machine (counting on the
 * turn to outlast the drops, a loaded machine saw 14 and 18 of 20). Returns what was delivered and
 * how many drops and connections there were.
 */
async function streamWithDrops(subscriber: WeftClient, drop: (threadId: string) => Promise<void>, maxDrops: number) {
  const { threadId } = await client.createThread({});
  const frames: EventFrame[] = [];
  const asked: Array<{ callId: string; connection: number }> = [];
  let opened: () => void = () => {};
  const open = new Promise<void>((resolve) => (opened = resolve));
  const sub = subscriber.subscribe(threadId, {
    onOpen: () => opened(),
    onEvent: (frame) => {
      frames.push(frame);
      if (frame.type === "tool_call_approval_requested") asked.push({ callId: (frame.data as { callId: string }).callId, connection: sub.connections });
    },
    reconnect: { minReconnectionDelay: 10, maxReconnectionDelay: 50 },
  });
  await open;
  const script = Array.from({ length: maxDrops + 1 }, (_, i) => ({
    text: `step ${i + 1}`,
    toolCalls: [
      ...(i < maxDrops ? [{ id: `gate_${i}`, name: "needs_ok", arguments: { amount: 500, label: `gate ${i}` } }] : []),
      { id: `slow_${i}`, name: "slow_read", arguments: { ms: 150 } },
      { id: `sum_${i}`, name: "sum_range", arguments: { from: 1, to: i + 2 } },
      // Reads only beside the gate: a restart may cut them mid-run, and a read runs again, where a
      // call of undeclared effect (get_server_time) cut mid-run is parked for a person, by design,
      // and the turn waits (seen under load: the turn stayed waiting).
      { id: `person_${i}`, name: "person", arguments: { name: "A", age: i } },
    ],
  }));
  await client.postMessage(threadId, { content: "go", script: [...script, { text: "all done" }] });
  let drops = 0;
  for (let i = 0; i < maxDrops; i++) {
    for (const deadline = Date.now() + 90_000; asked.length <= i; await new Promise((r) => setTimeout(r, 20))) {
      if (Date.now() > deadline) throw new Error(`the approval request of step ${i + 1} never reached the subscriber (${drops} drops)`);
    }
    // Asked on the connection opened after the last drop: one drop per connection.
    expect(asked[i]).toEqual({ callId: `gate_${i}`, connection: drops + 1 });
    await drop(threadId);
    drops++;
    await approve(threadId, `gate_${i}`);
  }
  const info = await waitIdle(threadId);
  for (const deadline = Date.now() + 20_000; sub.lastSeq < info.lastSeq && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 20));
  sub.close();
  return { frames, drops, connections: sub.connections, closed: await sub.closed, info };
}

/** Approves a call of a turn; a request that meets a restart (503 thread_restarted) asks again. */
async function approve(threadId: string, callId: string) {
  for (const deadline = Date.now() + 90_000; ; await new Promise((r) => setTimeout(r, 50))) {
    const answer = await client.approve(threadId, callId).catch((e: WeftClientError) => {
      if (e.code === "thread_restarted" && Date.now() < deadline) return null;
      throw e;
    });
    if (answer) return answer;
  }
}

it("usage and budgets: a thread's usage, the account's, and the caller's budgets", async () => {
  const { threadId } = await client.createThread({});
  await client.postMessage(threadId, { content: "go", script: [{ text: "hello" }] });
  await waitIdle(threadId);
  // The scripted model reports no usage: its one request is estimated, and marked so.
  expect(await client.getThreadUsage(threadId)).toMatchObject({ threadId, total: { requests: 1, estimatedRequests: 1 }, turns: [{ requests: 1 }] });
  // The rollup to the account is not awaited by the turn: it lands shortly after.
  for (let i = 0; i < 100 && (await client.getAccountUsage({ groupBy: "agent" })).total.requests < 1; i++) await new Promise((r) => setTimeout(r, 50));
  expect((await client.getAccountUsage({ groupBy: "agent" })).total.requests).toBeGreaterThanOrEqual(1);
  await expect(client.getAccountUsage({ groupBy: "tool" as never })).rejects.toMatchObject({ code: "invalid_request", details: { path: ["groupBy"] } });
  const budgets = [{ scope: "thread" as const, period: "turn" as const, tokens: 1_000_000 }];
  expect(await client.setBudgets(budgets)).toEqual({ budgets });
  expect(await client.getBudgets()).toEqual({ budgets });
  // Set back: the other cases here run as the same user.
  expect(await client.setBudgets([])).toEqual({ budgets: [] });
});

it("subscribe survives 20 dropped connections while a turn streams: every seq once, in order", async () => {
  // The network drops: a proxy between client and server destroys the TCP connection.
  const proxy = await startProxy(weft.port);
  try {
    const viaProxy = new WeftClient({ url: proxy.url, token: API_KEYS.tester });
    const run = await streamWithDrops(viaProxy, async () => void expect(proxy.cut()).toBeGreaterThan(0), 20);
    expect(run.closed).toBeNull();
    expect(run.frames.map((f) => f.seq)).toEqual(range1(run.info.lastSeq));
    expect(run.frames.at(-1)!.type).toBe("turn_finished");
    expect(run.drops).toBe(20);
    expect(run.connections).toBe(21);
  } finally {
    await proxy.close();
  }
}, 300_000);

it("subscribe survives restarts of the thread's Durable Object while a turn streams", async () => {
  // The server drops: ctx.abort() of the thread closes its sockets (1006) and cuts the turn, which resumes.
  const restart = async (threadId: string) => {
    const res = await fetch(`${weft.url}/__test/threads/${threadId}/restart`, { method: "POST" });
    expect(await res.json()).toEqual({ restarted: true });
  };
  const run = await streamWithDrops(client, restart, 15);
  expect(run.closed).toBeNull();
  expect(run.frames.map((f) => f.seq)).toEqual(range1(run.info.lastSeq));
  expect(run.frames.at(-1)!.type).toBe("turn_finished");
  expect(run.info.lastTurn?.status).toBe("completed");
  expect(run.drops).toBe(15);
  expect(run.connections).toBe(16);
}, 300_000);

it("a refused upgrade is an error that stops the retries: bad token, unknown thread", async () => {
  const { threadId } = await client.createThread({});
  const outcomes = await Promise.all([
    new WeftClient({ url: weft.url, token: "not-a-key" }).subscribe(threadId, { onEvent: () => {} }).closed,
    client.subscribe("0".repeat(64), { onEvent: () => {} }).closed,
    client.subscribe("not-a-thread-id", { onEvent: () => {} }).closed,
    // Another user's thread is as unknown as a missing one.
    new WeftClient({ url: weft.url, token: API_KEYS.alice }).subscribe(threadId, { onEvent: () => {} }).closed,
  ]);
  expect(outcomes.map((e) => e && [e.code, e.status])).toEqual([
    ["unauthenticated", 401],
    ["thread_not_found", 404],
    ["thread_not_found", 404],
    ["thread_not_found", 404],
  ]);
});

it("GET /openapi.json is a valid OpenAPI 3.1 document", async () => {
  const res = await fetch(`${weft.url}/openapi.json`, { headers: { authorization: `Bearer ${API_KEYS.tester}` } });
  expect(res.status).toBe(200);
  const document = (await res.json()) as Record<string, unknown>;
  const validator = new Validator();
  const result = await validator.validate(document);
  expect(result.errors ?? []).toEqual([]);
  expect(result.valid).toBe(true);
  expect(validator.version).toBe("3.1");
});
