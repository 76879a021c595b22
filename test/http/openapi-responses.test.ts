/**
 * Every operation of `GET /openapi.json` against real answers of the test worker: threads made and
 * run with scripted steps, calls approved, denied and settled, files, direct tool calls, the
 * account's env, MCP, the chat routes, and the refusals (401 for every operation; 400, 413 and
 * 415 for every body; 404 for every thread route; 409 and 422 where they apply). Each answer's
 * body is validated against the document's schema for its operation and status (test/openapi-check.ts),
 * and the last test fails when an operation+status the document lists was never exercised.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { type Document, ResponseCheck } from "../openapi-check.js";
import { createThread, json, effectRuns, request, stubOf, until } from "../helpers.js";

let check: ResponseCheck;
const send = (...args: Parameters<ResponseCheck["send"]>) => check.send(...args);
/** A thread id no thread has (well formed: the route reaches a thread, which is not there). */
const NO_THREAD = "0".repeat(64);

/** A body that fits each body route's schema, for refusals that come after the body checks. */
const VALID_BODY: Record<string, unknown> = {
  "POST /threads": {},
  "POST /threads/{id}/messages": { content: "hi" },
  "POST /threads/{id}/calls/{callId}/approve": {},
  "POST /threads/{id}/calls/{callId}/deny": {},
  "POST /threads/{id}/calls/{callId}/settle": { outcome: "retry" },
  "POST /threads/{id}/calls/{callId}/result": { result: "ok" },
  "PUT /account/budgets": { budgets: [] },
  "POST /threads/{id}/schedules": { every: "5m", target: { tool: "effect_read" } },
  "POST /threads/{id}/chat": { messages: [{ role: "user", parts: [{ type: "text", text: "hi" }] }] },
  "PUT /account/env/{name}": { value: "v", type: "text" },
  "POST /v1/tools/{name}": { input: { from: 1, to: 2 } },
  "POST /mcp": { jsonrpc: "2.0", id: 1, method: "tools/list" },
};

/** A request path for an operation's template. */
const pathOf = (template: string, id = NO_THREAD) =>
  template.replace("{id}", id).replace("{callId}", "c1").replace("{scheduleId}", "sch_none").replace("{server}", "oauthed").replace("{path}", "calls/c1/result.txt").replace("{name}", template.startsWith("/v1") ? "sum_range" : "OPENAPI_VAR");

/** A thread of agent `guarantees` whose turn waits for approval of call `pay`. */
async function waitingThread(): Promise<string> {
  const id = await createThread({ agent: "guarantees" });
  await send("POST", `/threads/${id}/messages`, { json: { content: "pay", script: [{ toolCalls: [{ id: "pay", name: "needs_ok", arguments: { amount: 500 } }] }, { text: "done" }] } });
  await stubOf(id).waitIdle();
  return id;
}

/** Sends `body` with Idempotency-Key `key`, then another body with the same key: 200-ish, then 422. */
async function keyReused(method: string, path: string, key: string, first: unknown, second: unknown): Promise<{ first: number; second: number }> {
  const a = await send(method, path, { json: first, headers: { "idempotency-key": key } });
  const b = await send(method, path, { json: second, headers: { "idempotency-key": key } });
  return { first: a.status, second: b.status };
}

beforeAll(async () => {
  const { status, body } = await json<Document>("GET", "/openapi.json");
  expect(status).toBe(200);
  check = new ResponseCheck(body);
});

describe("OpenAPI response schemas against real answers", () => {
  it("every operation answers 401 without credentials with the documented error body", async () => {
    for (const [op, operation] of check.operations()) {
      // A public route (the OAuth redirect back) takes no credential: its refusals are exercised below.
      if (Array.isArray(operation.security) && operation.security.length === 0) continue;
      const [method, template] = op.split(" ") as [string, string];
      const body = VALID_BODY[op];
      const headers: Record<string, string> = template.endsWith("/ws") ? { upgrade: "websocket" } : {};
      const answer = await send(method, pathOf(template), { ...(body !== undefined ? { json: body } : {}), headers, as: null });
      expect([op, answer.status, answer.body.error?.code]).toEqual([op, 401, "unauthenticated"]);
    }
  });

  it("every body is refused as documented: not JSON (400), not application/json (415), too large (413)", async () => {
    const tooLarge = `{"x":"${"a".repeat(8 * 1024 * 1024)}"}`;
    for (const [op, operation] of check.operations()) {
      if (!operation.responses["415"]) continue;
      const [method, template] = op.split(" ") as [string, string];
      const path = pathOf(template);
      const broken = await send(method, path, { raw: "{", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" } });
      expect([op, broken.status]).toEqual([op, 400]);
      const plain = await send(method, path, { raw: "{}", headers: { "content-type": "text/plain" } });
      expect([op, plain.status, plain.body.error.code]).toEqual([op, 415, "unsupported_media_type"]);
      const large = await send(method, path, { raw: tooLarge, headers: { "content-type": "application/json" } });
      expect([op, large.status, large.body.error.code]).toEqual([op, 413, "payload_too_large"]);
    }
  });

  it("every route of a thread that is not there answers 404", async () => {
    for (const [op, operation] of check.operations()) {
      const [method, template] = op.split(" ") as [string, string];
      if (!template.startsWith("/threads/{id}") || !operation.responses["404"]) continue;
      const body = VALID_BODY[op];
      const headers: Record<string, string> = template.endsWith("/ws") ? { upgrade: "websocket" } : {};
      const answer = await send(method, pathOf(template), { ...(body !== undefined ? { json: body } : {}), headers });
      expect([op, answer.status]).toEqual([op, 404]);
    }
  });

  it("the index, the document itself, the account and the tool listing", async () => {
    expect((await send("GET", "/")).status).toBe(200);
    const page = await send("GET", "/", { headers: { accept: "text/html" }, as: null });
    expect([page.status, page.res.headers.get("content-type")]).toEqual([200, expect.stringMatching(/^text\/html/)]);
    expect((await send("GET", "/openapi.json")).body.openapi).toBe("3.1.0");
    expect((await send("GET", "/account")).body.userId).toBe("tester");
    expect((await send("GET", "/v1/tools")).body.tools.length).toBeGreaterThan(0);
  });

  it("threads: create, list, read, messages, stop, delete, and their refusals", async () => {
    const created = await send("POST", "/threads", { json: { agent: "guarantees", arguments: { plan: "pro" } } });
    expect(created.status).toBe(201);
    const id = created.body.threadId as string;
    expect((await send("POST", "/threads", { json: { agnet: "x" } })).status).toBe(400);
    expect((await send("POST", "/threads", { json: { agent: "no_such_agent" } })).body.error.code).toBe("agent_not_found");
    const token = { continuationToken: `openapi:${crypto.randomUUID()}` };
    expect((await send("POST", "/threads", { json: token })).status).toBe(201);
    expect((await send("POST", "/threads", { json: token })).body.error.code).toBe("thread_exists");
    expect(await keyReused("POST", "/threads", crypto.randomUUID(), {}, { dryRun: true })).toEqual({ first: 201, second: 422 });

    expect((await send("GET", "/threads?limit=5")).body.threads.length).toBeGreaterThan(0);
    expect((await send("GET", "/threads?limit=0")).status).toBe(400);

    const posted = await send("POST", `/threads/${id}/messages`, { json: { content: "hello", script: [{ text: "hi there" }] } });
    expect(posted.status).toBe(202);
    await stubOf(id).waitIdle();
    expect(await keyReused("POST", `/threads/${id}/messages`, crypto.randomUUID(), { content: "a", script: [{ text: "x" }] }, { content: "b" })).toEqual({ first: 202, second: 422 });
    await stubOf(id).waitIdle();
    expect((await send("POST", `/threads/${id}/messages`, { json: { content: 5 } })).status).toBe(400);

    const info = await send("GET", `/threads/${id}`);
    expect(info.body).toMatchObject({ status: "idle", lastTurn: { status: "completed" } });
    expect((await send("GET", `/threads/${id}/messages?limit=50&includeSilent=true`)).body.messages.length).toBeGreaterThan(1);
    expect((await send("GET", `/threads/${id}/messages?limit=abc`)).status).toBe(400);
    expect((await send("POST", `/threads/${id}/stop`)).body).toEqual({ stopped: false });

    const ws = await request(`/threads/${id}/ws?since=0`, { headers: { upgrade: "websocket" } });
    await check.check("GET", `/threads/${id}/ws`, ws);
    expect(ws.status).toBe(101);
    ws.webSocket!.accept();
    ws.webSocket!.close(1000, "done");
    const ahead = await request(`/threads/${id}/ws?since=999999`, { headers: { upgrade: "websocket" } });
    expect((await check.check("GET", `/threads/${id}/ws`, ahead)).status).toBe(400);
    expect((await send("GET", `/threads/${id}/ws`)).body.error.code).toBe("upgrade_required");
    // This runtime's socket limit is 8 (vitest.config.ts): the ninth open one is refused.
    const open: WebSocket[] = [];
    for (let i = 0; i < 8; i++) {
      const res = await request(`/threads/${id}/ws`, { headers: { upgrade: "websocket" } });
      res.webSocket!.accept();
      open.push(res.webSocket!);
    }
    const crowded = await request(`/threads/${id}/ws`, { headers: { upgrade: "websocket" } });
    expect((await check.check("GET", `/threads/${id}/ws`, crowded)).status).toBe(429);
    for (const socket of open) socket.close(1000, "done");

    expect((await send("DELETE", `/threads/${id}`)).body).toEqual({ deleted: true });
  });

  it("calls: list, read, approve, deny, settle, a client's answer, and their refusals", async () => {
    const approving = await waitingThread();
    expect((await send("GET", `/threads/${approving}/calls`)).body.calls[0]).toMatchObject({ callId: "pay", status: "awaiting_approval" });
    expect((await send("GET", `/threads/${approving}/calls?status=bogus`)).status).toBe(400);
    // The caller's inbox, newest thread first: this one's call is on its first page.
    expect((await send("GET", "/account/waiting?limit=1")).body.calls).toEqual([expect.objectContaining({ threadId: approving, callId: "pay", status: "awaiting_approval" })]);
    expect((await send("GET", "/account/waiting?cursor=nope")).status).toBe(400);
    expect((await send("GET", `/threads/${approving}/calls/pay`)).body.status).toBe("awaiting_approval");
    expect((await send("GET", `/threads/${approving}/calls/nope`)).body.error.code).toBe("call_not_found");
    expect(await keyReused("POST", `/threads/${approving}/calls/pay/approve`, crypto.randomUUID(), {}, { argsHash: "f".repeat(64) })).toEqual({ first: 200, second: 422 });
    expect((await send("POST", `/threads/${approving}/calls/pay/approve`, { json: { argsHash: 5 } })).status).toBe(400);
    // The same approval again is answered as the call stands; a denial now is refused.
    expect((await send("POST", `/threads/${approving}/calls/pay/approve`, { json: {} })).body).toMatchObject({ callId: "pay", repeated: true });
    expect((await send("POST", `/threads/${approving}/calls/pay/deny`, { json: {} })).body.error.code).toBe("call_not_waiting");
    await stubOf(approving).waitIdle();
    expect((await send("GET", `/threads/${approving}`)).body.lastTurn.modelSteps.length).toBe(2);

    const denying = await waitingThread();
    expect(await keyReused("POST", `/threads/${denying}/calls/pay/deny`, crypto.randomUUID(), { reason: "no" }, { reason: "never" })).toEqual({ first: 200, second: 422 });
    expect((await send("POST", `/threads/${denying}/calls/pay/deny`, { json: { reason: 5 } })).status).toBe(400);
    expect((await send("POST", `/threads/${denying}/calls/pay/deny`, { json: { reason: "no" } })).body).toMatchObject({ status: "denied", repeated: true });
    expect((await send("POST", `/threads/${denying}/calls/pay/approve`, { json: {} })).status).toBe(409);
    await stubOf(denying).waitIdle();

    // A write that hangs after its effect, stopped: parked, for a person to settle.
    const parked = await createThread({ agent: "guarantees" });
    await send("POST", `/threads/${parked}/messages`, { json: { content: "go", script: [{ toolCalls: [{ id: "w", name: "effect_write", arguments: { hang: true } }] }] } });
    await until(async () => (await effectRuns(parked, "w")).runs === 1, "the write's effect");
    expect((await send("POST", `/threads/${parked}/stop`)).body).toEqual({ stopped: true });
    await stubOf(parked).waitIdle();
    expect((await send("GET", `/threads/${parked}/calls/w`)).body.status).toBe("parked");
    const settle = `/threads/${parked}/calls/w/settle`;
    expect((await send("POST", settle, { json: { outcome: "maybe" } })).status).toBe(400);
    expect(await keyReused("POST", settle, crypto.randomUUID(), { outcome: "failed", error: "cancelled" }, { outcome: "retry" })).toEqual({ first: 200, second: 422 });
    expect((await send("POST", settle, { json: { outcome: "retry" } })).status).toBe(409);
    await stubOf(parked).waitIdle();

    // A client tool's call, answered by the client: once.
    const client = await createThread({ agent: "browser" });
    await send("POST", `/threads/${client}/messages`, { json: { content: "pick", script: [{ toolCalls: [{ id: "pick", name: "pick_file", arguments: { prompt: "a file" } }] }, { text: "ok" }] } });
    await stubOf(client).waitIdle();
    const result = `/threads/${client}/calls/pick/result`;
    expect((await send("POST", result, { json: {} })).status).toBe(400);
    expect(await keyReused("POST", result, crypto.randomUUID(), { result: { name: "a.txt", bytes: 1 } }, { error: "closed" })).toEqual({ first: 200, second: 422 });
    expect((await send("POST", result, { json: { error: "again" } })).status).toBe(409);
    await stubOf(client).waitIdle();
  });

  it("files: list, fetch, delete", async () => {
    const id = await createThread();
    await send("POST", `/threads/${id}/messages`, { json: { content: "files", script: [{ toolCalls: [{ id: "f", name: "many_attachments", arguments: { count: 1 } }] }, { text: "ok" }] } });
    await stubOf(id).waitIdle();
    // The default agent offers every tool, provider-executed ones too.
    expect((await send("GET", `/threads/${id}`)).body.tools).toContainEqual(expect.objectContaining({ executionMode: "provider" }));
    const files = (await send("GET", `/threads/${id}/files`)).body.files as Array<{ path: string }>;
    expect(files.length).toBe(1);
    expect((await send("GET", `/threads/${id}/files?limit=0`)).status).toBe(400);
    const file = await send("GET", `/threads/${id}/files/${files[0]!.path}`);
    expect([file.status, file.body]).toEqual([200, "note 0"]);
    expect((await send("GET", `/threads/${id}/files/none.txt`)).status).toBe(404);
    expect((await send("DELETE", `/threads/${id}/files/${files[0]!.path}`)).body).toEqual({ deleted: true });
  });

  it("schedules: make, list, cancel, and their refusals", async () => {
    const id = await createThread({ agent: "guarantees" });
    const made = await send("POST", `/threads/${id}/schedules`, { json: { every: "5m", target: { tool: "effect_read", input: {} } } });
    expect(made.status).toBe(201);
    expect((await send("POST", `/threads/${id}/schedules`, { json: { every: "5s", target: { tool: "effect_read" } } })).status).toBe(400);
    expect(await keyReused("POST", `/threads/${id}/schedules`, crypto.randomUUID(), { every: "5m", target: { tool: "effect_read" } }, { every: "6m", target: { tool: "effect_read" } })).toEqual({ first: 201, second: 422 });
    expect((await send("GET", `/threads/${id}/schedules`)).body.schedules.length).toBe(2);
    expect((await send("GET", `/threads/${id}/schedules?limit=0`)).status).toBe(400);
    expect((await send("DELETE", `/threads/${id}/schedules/${made.body.scheduleId}`)).body.status).toBe("cancelled");
    expect((await send("DELETE", `/threads/${id}/schedules/sch_none`)).status).toBe(404);
    expect((await send("GET", "/schedules/files")).status).toBe(200);
    expect((await send("POST", "/schedules/files/pulse/run")).body).toMatchObject({ name: "pulse", status: "fired" });
    expect((await send("POST", "/schedules/files/no_such_file/run")).status).toBe(404);
  });

  it("records with their optional fields: a capped result with an attachment, a refused input, a thrown error, a dry run", async () => {
    const id = await createThread({ agent: "guarantees" });
    const script = [
      {
        text: "working",
        toolCalls: [
          { id: "big", name: "big_result", arguments: { bytes: 6000, attach: true } },
          { id: "bad", name: "needs_ok", arguments: { amount: "lots" } },
          { id: "boom", name: "flaky", arguments: { failures: 1, how: "permanent" } },
        ],
      },
      { text: "done" },
    ];
    await send("POST", `/threads/${id}/messages`, { json: { content: "records", script } });
    await stubOf(id).waitIdle();
    const calls = (await send("GET", `/threads/${id}/calls`)).body.calls as Array<Record<string, unknown>>;
    expect(calls.find((c) => c.callId === "big")).toMatchObject({ fullResultPath: expect.any(String), result: { attachments: [expect.objectContaining({ path: expect.any(String) })] } });
    expect(calls.find((c) => c.callId === "bad")).toMatchObject({ errorCode: "invalid_tool_input", errorDetails: expect.any(Object) });
    const messages = (await send("GET", `/threads/${id}/messages?limit=50`)).body.messages as Array<Record<string, unknown>>;
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "tool", "tool", "assistant"]);
    expect((await send("GET", `/threads/${id}`)).body.lastTurn).toMatchObject({ modelSteps: [expect.any(Object), expect.any(Object)], usage: expect.any(Object) });
    expect((await send("GET", `/threads/${id}/chat`)).body.messages.length).toBeGreaterThan(1);
    expect((await send("GET", `/threads/${id}/files`)).body.files.length).toBe(2);

    const dry = await send("POST", "/threads", { json: { agent: "guarantees", dryRun: true, asOf: "2026-01-01T00:00:00Z" } });
    expect(dry.body).toMatchObject({ dryRun: true, asOf: "2026-01-01T00:00:00Z" });
    await send("POST", `/threads/${dry.body.threadId}/messages`, { json: { content: "dry", script: [{ toolCalls: [{ id: "w", name: "effect_write", arguments: {} }] }, { text: "ok" }] } });
    await stubOf(dry.body.threadId).waitIdle();
    expect((await send("GET", `/threads/${dry.body.threadId}/calls/w`)).body).toMatchObject({ stubbed: true });
  });

  it("chat: the history as UI messages, and a streamed turn", async () => {
    const id = await waitingThread();
    expect((await send("GET", `/threads/${id}/chat`)).body.messages.length).toBeGreaterThan(0);
    await send("POST", `/threads/${id}/calls/pay/approve`, { json: {} });
    await stubOf(id).waitIdle();
    const streamed = await send("POST", `/threads/${id}/chat`, { json: { messages: [{ role: "user", parts: [{ type: "text", text: "again" }] }], script: [{ text: "streamed" }] } });
    expect([streamed.status, streamed.body]).toEqual([200, expect.stringContaining("streamed")]);
    const regenerate = await send("POST", `/threads/${id}/chat`, { json: { trigger: "regenerate-message", messages: [{ role: "user", parts: [{ type: "text", text: "x" }] }] } });
    expect(regenerate.status).toBe(400);
    await stubOf(id).waitIdle();
  });

  it("account env: read, set, remove, and a name that is not one", async () => {
    expect((await send("PUT", "/account/env/OPENAPI_VAR", { json: { value: "shown", type: "text" } })).body).toEqual({ name: "OPENAPI_VAR", type: "text" });
    expect((await send("PUT", "/account/env/OPENAPI_SECRET", { json: { value: "hidden" } })).body).toEqual({ name: "OPENAPI_SECRET", type: "secret" });
    expect((await send("GET", "/account/env")).body.env).toMatchObject({ OPENAPI_VAR: { value: "shown", type: "text" }, OPENAPI_SECRET: { type: "secret" } });
    expect((await send("PUT", "/account/env/1bad", { json: { value: "x" } })).status).toBe(400);
    expect((await send("DELETE", "/account/env/OPENAPI_SECRET")).body).toEqual({ deleted: true });
    expect((await send("DELETE", "/account/env/1bad")).status).toBe(400);
  });

  it("usage and budgets: a thread's usage, the account's, its budgets, and their refusals", async () => {
    const id = (await send("POST", "/threads", { json: {} })).body.threadId as string;
    await send("POST", `/threads/${id}/messages`, { json: { content: "hi", script: [{ text: "hello" }] } });
    expect((await send("GET", `/threads/${id}/usage`)).body.total.requests).toBeGreaterThanOrEqual(0);
    expect((await send("GET", "/account/usage?groupBy=agent")).status).toBe(200);
    expect((await send("GET", "/account/usage?groupBy=nothing")).status).toBe(400);
    expect((await send("PUT", "/account/budgets", { json: { budgets: [{ scope: "user", period: "day", tokens: 100_000_000 }] } })).body.budgets).toHaveLength(1);
    expect((await send("GET", "/account/budgets")).body.budgets).toHaveLength(1);
    expect((await send("PUT", "/account/budgets", { json: { budgets: [{ scope: "planet", period: "day", tokens: 1 }] } })).status).toBe(400);
    // Set back: the other cases of this file run as the same user.
    expect((await send("PUT", "/account/budgets", { json: { budgets: [] } })).body.budgets).toEqual([]);
  });

  it("MCP OAuth connections: the redirect back, the list, the revocation, and their refusals", async () => {
    const id = (await send("POST", "/threads", { json: { agent: "remote_oauth" } })).body.threadId as string;
    await send("POST", `/threads/${id}/messages`, { json: { content: "connect", script: [{ toolCalls: [{ id: "c", name: "oauthed__connect", arguments: {} }] }, { text: "done" }] } });
    await stubOf(id).waitIdle();
    const reason = (await send("GET", `/threads/${id}/calls/c`)).body.parkReason as string;
    const url = new URL(/open (\S+)/.exec(reason)![1]!);
    const back = new URL((await fetch(url, { redirect: "manual" })).headers.get("location")!);
    expect((await send("GET", `${back.pathname}?state=${encodeURIComponent(back.searchParams.get("state")!)}&error=access_denied`, { as: null })).status).toBe(401);
    expect((await send("GET", `${back.pathname}?state=nonsense`, { as: null })).status).toBe(400);
    // The redirect back answers the page; the page completes it with the browser's weft credential.
    expect((await send("GET", back.pathname + back.search, { as: null })).status).toBe(200);
    const claim = { state: back.searchParams.get("state"), code: back.searchParams.get("code"), iss: back.searchParams.get("iss") };
    expect((await send("POST", "/mcp-oauth/complete", { json: claim, as: "bob" })).body.error.code).toBe("mcp_wrong_user");
    // The authorization server briefly down: 502, and the authorization stays open.
    await fetch(`https://as.mcp.test/__oauth/fail-code?code=${encodeURIComponent(claim.code!)}`);
    expect((await send("POST", "/mcp-oauth/complete", { json: claim })).status).toBe(502);
    expect((await send("POST", "/mcp-oauth/complete", { json: claim })).body).toEqual({ connected: true, server: "oauthed", threadId: id });
    expect((await send("POST", "/mcp-oauth/complete", { json: claim })).status).toBe(400);
    await until(async () => (await send("GET", `/threads/${id}/calls/c`)).body.status === "succeeded", "the connect call to finish");
    await stubOf(id).waitIdle();
    expect((await send("GET", "/account/mcp-connections")).body.connections).toHaveLength(1);
    expect((await send("DELETE", "/account/mcp-connections/oauthed")).body).toEqual({ deleted: true });
    expect((await send("DELETE", "/account/mcp-connections/Not-A-Server")).status).toBe(400);
  });

  it("MCP servers a user adds: add, list, remove, and their refusals", async () => {
    expect((await send("POST", "/mcp-servers", { json: { name: "openapi_srv", url: "https://tools.mcp.test/mcp", tools: ["lookup"] } })).body.name).toBe("openapi_srv");
    expect((await send("POST", "/mcp-servers", { json: { name: "openapi_bad", url: "http://tools.example/mcp" } })).status).toBe(400);
    expect((await send("GET", "/mcp-servers")).body.servers.map((s: { name: string }) => s.name)).toContain("openapi_srv");
    expect((await send("GET", "/v1/tools")).body.remote.tools.some((t: { server: string }) => t.server === "openapi_srv")).toBe(true);
    expect((await send("DELETE", "/mcp-servers/openapi_srv")).body).toEqual({ deleted: true });
    expect((await send("DELETE", "/mcp-servers/Not-A-Server")).status).toBe(400);
  });

  it("direct tool calls: a result, a wait for approval, and the refusals", async () => {
    const done = await send("POST", "/v1/tools/sum_range", { json: { input: { from: 1, to: 3 } } });
    expect([done.status, done.body.ok]).toEqual([200, true]);
    const waits = await send("POST", "/v1/tools/needs_ok", { json: { input: { amount: 500 } } });
    expect([waits.status, waits.body.status]).toEqual([202, "awaiting_approval"]);
    expect((await send("POST", "/v1/tools/sum_range", { json: { input: { from: "x" } } })).status).toBe(400);
    expect((await send("POST", "/v1/tools/no_such_tool", { json: {} })).body.error.code).toBe("unknown_tool");
    // A write in a session whose turn waits for a person is refused until the turn finishes.
    const busy = await waitingThread();
    expect((await send("POST", "/v1/tools/record_call", { json: { sessionId: busy, input: { note: "busy" } } })).body.error.code).toBe("session_busy");
    expect(await keyReused("POST", "/v1/tools/sum_range", crypto.randomUUID(), { input: { from: 1, to: 2 } }, { input: { from: 1, to: 3 } })).toEqual({ first: 200, second: 422 });
  });

  it("MCP: JSON-RPC over POST, a notification, the refusals (403 for a foreign browser origin), and 405 for GET and DELETE", async () => {
    const accept = { accept: "application/json, text/event-stream" };
    const listed = await send("POST", "/mcp", { json: { jsonrpc: "2.0", id: 1, method: "tools/list" }, headers: accept });
    expect(listed.body.result.tools.length).toBeGreaterThan(0);
    const unknown = await send("POST", "/mcp", { json: { jsonrpc: "2.0", id: 2, method: "tools/frobnicate" }, headers: accept });
    expect(unknown.body.error.code).toBe(-32601);
    expect((await send("POST", "/mcp", { json: { jsonrpc: "2.0", method: "notifications/initialized" }, headers: accept })).status).toBe(202);
    expect((await send("POST", "/mcp", { json: { foo: 1 }, headers: accept })).status).toBe(400);
    expect((await send("POST", "/mcp", { json: { jsonrpc: "2.0", id: 3, method: "tools/list" } })).status).toBe(406);
    expect((await send("GET", "/mcp", { headers: { accept: "text/event-stream" } })).status).toBe(405);
    expect((await send("DELETE", "/mcp")).status).toBe(405);
    // A browser page of a host weft does not serve by name (DNS rebinding).
    expect((await send("POST", "/mcp", { json: { jsonrpc: "2.0", id: 4, method: "tools/list" }, headers: { ...accept, origin: "http://evil.example" } })).body.error.code).toBe("origin_not_allowed");
  });

  it("names the operation, status and path of a body that does not fit (a planted wrong field)", async () => {
    const id = await createThread();
    const { body } = await json("GET", `/threads/${id}`);
    expect(check.mismatches("GET /threads/{id}", 200, "application/json", body)).toEqual([]);
    expect(check.mismatches("GET /threads/{id}", 200, "application/json", { ...body, messageCount: "0" })).toEqual(["GET /threads/{id} 200: /messageCount: Instance type \"string\" is invalid. Expected \"integer\"."]);
    expect(check.mismatches("GET /threads/{id}", 200, "application/json", { ...body, surprise: true })).toEqual(['GET /threads/{id} 200: /: Property "surprise" does not match additional properties schema.', "GET /threads/{id} 200: /surprise: False boolean schema."]);
    const { messageCount: _, ...missing } = body;
    expect(check.mismatches("GET /threads/{id}", 200, "application/json", missing)).toEqual(['GET /threads/{id} 200: /: Instance does not have required property "messageCount".']);
    expect(check.mismatches("GET /threads/{id}", 404, "application/json", { error: { code: "call_not_waiting", message: "x" } })[0]).toMatch(/^GET \/threads\/\{id\} 404: \/error\/code: /);
  });

  it("exercised every operation and status the document lists", () => {
    const missing = check.listed().filter((pair) => !check.seen.has(pair));
    expect(missing).toEqual([]);
    expect(check.seen.size).toBe(check.listed().length);
  });
});
