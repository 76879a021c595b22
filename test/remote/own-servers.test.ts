/**
 * The MCP servers a user adds (`POST /mcp-servers`) offered in that user's threads, and only
 * theirs: the real MCP SDK server (scripts/lib/fake-mcp.mjs, `tools.mcp.test`) called from the
 * owner's thread; another user's thread neither sees nor calls it; a server added mid-thread is
 * offered from the next model step; a removed one is offered no more and a call to its tool is
 * refused as an unknown tool. And revocation: a connection revoked (`DELETE
 * /account/mcp-connections/:server`, or the server removed) is used by no open session again; the
 * next call parks for a new authorization. Users here are JWT subjects of this file alone.
 */
import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { request, stubOf } from "../helpers.js";

const SECRET = new TextEncoder().encode("weft-test-jwt-secret-not-for-production");

async function tokenOf(sub: string): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ name: sub, roles: [] }).setProtectedHeader({ alg: "HS256" }).setSubject(sub).setIssuer("weft-tests").setAudience("weft-test").setIssuedAt(now - 60).setExpirationTime(now + 3600).sign(SECRET);
}

/** Sends JSON as the JWT user `sub`. */
async function as<T = any>(sub: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const headers: Record<string, string> = { authorization: `Bearer ${await tokenOf(sub)}`, ...(body !== undefined ? { "content-type": "application/json" } : {}) };
  const res = await request(path, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) }, null);
  return { status: res.status, body: (await res.json()) as T };
}

type Call = { callId: string; toolName: string; status: string; parkReason?: string; result?: { status: string; result?: string; error?: string } };

async function threadOf(sub: string): Promise<string> {
  const made = await as<{ threadId: string }>(sub, "POST", "/threads", { agent: "stepper" });
  expect(made.status).toBe(201);
  return made.body.threadId;
}

async function turn(sub: string, threadId: string, script: unknown[]): Promise<Call[]> {
  expect((await as(sub, "POST", `/threads/${threadId}/messages`, { content: "go", script })).status).toBe(202);
  await stubOf(threadId).waitIdle();
  return (await as<{ calls: Call[] }>(sub, "GET", `/threads/${threadId}/calls`)).body.calls;
}

const lookup = (id: string, tool: string, tag: string) => [{ toolCalls: [{ id, name: tool, arguments: { id: "7", tag } }] }, { text: "done" }];
const callsSeen = async (tag: string) => ((await (await fetch("http://tools.mcp.test/__calls")).json()) as Record<string, number>)[`lookup:${tag}`] ?? 0;

/** Follows a parked call's authorization URL at the fake authorization server and completes it as `sub`, as the callback page does. */
async function authorize(parkReason: string | undefined, sub: string): Promise<void> {
  const m = /open (https:\/\/\S+)/.exec(parkReason ?? "");
  if (!m) throw new Error(`no authorization URL in ${parkReason}`);
  const signIn = new URL(m[1]!);
  signIn.searchParams.set("login", `${sub}-there`);
  const answer = await fetch(signIn, { redirect: "manual" });
  expect(answer.status).toBe(302);
  const back = new URL(answer.headers.get("location")!);
  expect((await request(back.pathname + back.search, undefined, null)).status).toBe(200);
  const iss = back.searchParams.get("iss");
  const done = await as(sub, "POST", "/mcp-oauth/complete", { state: back.searchParams.get("state"), code: back.searchParams.get("code"), ...(iss !== null ? { iss } : {}) });
  expect(done.status).toBe(200);
}

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const callsOf = async (sub: string, threadId: string) => (await as<{ calls: Call[] }>(sub, "GET", `/threads/${threadId}/calls`)).body.calls;

describe("MCP servers a user adds, in threads", () => {
  it("offers a user's server in their threads only; added mid-thread from the next step; removed, refused", async () => {
    const ann = "own-srv-ann";
    const ben = "own-srv-ben";
    const tag = `own-${crypto.randomUUID().slice(0, 8)}`;
    const annThread = await threadOf(ann);

    // Not added yet: an unknown tool, and the server gets nothing.
    let calls = await turn(ann, annThread, lookup("a1", "annsrv__lookup", tag));
    expect(calls.find((c) => c.callId === "a1")).toMatchObject({ status: "failed", result: { status: "error", error: expect.stringContaining('unknown tool "annsrv__lookup"') } });

    // Added while the thread lives: its next model step offers it, and the call reaches the server.
    expect((await as(ann, "POST", "/mcp-servers", { name: "annsrv", url: "https://tools.mcp.test/mcp", tools: ["lookup"] })).status).toBe(200);
    calls = await turn(ann, annThread, lookup("a2", "annsrv__lookup", tag));
    expect(calls.find((c) => c.callId === "a2")).toMatchObject({ status: "succeeded", result: { status: "success", result: "record 7" } });
    expect(await callsSeen(tag)).toBe(1);

    // Ben's thread neither offers nor calls ann's server, and its refusal does not name it.
    const benThread = await threadOf(ben);
    calls = await turn(ben, benThread, lookup("b1", "annsrv__lookup", tag));
    const refused = calls.find((c) => c.callId === "b1")!;
    expect(refused).toMatchObject({ status: "failed", result: { status: "error", error: expect.stringContaining('unknown tool "annsrv__lookup"') } });
    expect(refused.result!.error!.split("available tools:")[1]).toBe(" person");
    expect(await callsSeen(tag)).toBe(1);

    // Removed: offered no more in ann's open thread, and a call to it is refused before anything is sent.
    expect((await as(ann, "DELETE", "/mcp-servers/annsrv")).body).toEqual({ deleted: true });
    calls = await turn(ann, annThread, lookup("a3", "annsrv__lookup", tag));
    expect(calls.find((c) => c.callId === "a3")).toMatchObject({ status: "failed", result: { status: "error", error: expect.stringContaining('unknown tool "annsrv__lookup"') } });
    expect(await callsSeen(tag)).toBe(1);
  });
});

describe("MCP servers a user adds, within one turn", () => {
  it("offers a server added while the turn waits from its next model step, and stops offering one removed meanwhile", async () => {
    const eve = "own-srv-eve";
    const tag = `own-${crypto.randomUUID().slice(0, 8)}`;
    const made = await as<{ threadId: string }>(eve, "POST", "/threads", { agent: "stoppable" });
    const id = made.body.threadId;
    /** A turn whose first step waits for approval; `meanwhile` runs while it waits, then the call is approved. */
    const waitThen = async (ok: string, call: string, meanwhile: () => Promise<void>) => {
      const script = [{ toolCalls: [{ id: ok, name: "needs_ok", arguments: { amount: 100 } }] }, { toolCalls: [{ id: call, name: "evesrv__lookup", arguments: { id: "7", tag } }] }, { text: "done" }];
      expect((await as(eve, "POST", `/threads/${id}/messages`, { content: "go", script })).status).toBe(202);
      await until(async () => (await callsOf(eve, id)).some((c) => c.callId === ok && c.status === "awaiting_approval"), "the approval to be asked");
      await meanwhile();
      expect((await as(eve, "POST", `/threads/${id}/calls/${ok}/approve`, {})).status).toBe(200);
      await until(async () => (await callsOf(eve, id)).some((c) => c.callId === call && c.status !== "started"), "the next step's call");
      await stubOf(id).waitIdle();
      return (await callsOf(eve, id)).find((c) => c.callId === call)!;
    };

    const added = await waitThen("ok1", "e1", async () => {
      expect((await as(eve, "POST", "/mcp-servers", { name: "evesrv", url: "https://tools.mcp.test/mcp", tools: ["lookup"] })).status).toBe(200);
    });
    expect(added).toMatchObject({ status: "succeeded", result: { result: "record 7" } });

    const removed = await waitThen("ok2", "e2", async () => {
      expect((await as(eve, "DELETE", "/mcp-servers/evesrv")).body).toEqual({ deleted: true });
    });
    expect(removed).toMatchObject({ status: "failed", result: { error: expect.stringContaining('unknown tool "evesrv__lookup"') } });
    expect(await callsSeen(tag)).toBe(1);
  });
});

describe("a call made before its server was removed", () => {
  it("approved after the removal, sends nothing and says why; the turn goes on", async () => {
    const fay = "own-srv-fay";
    const tag = `own-${crypto.randomUUID().slice(0, 8)}`;
    expect((await as(fay, "POST", "/mcp-servers", { name: "faysrv", url: "https://tools.mcp.test/mcp", tools: ["lookup"], needsApproval: true })).status).toBe(200);
    const id = await threadOf(fay);
    const script = [{ toolCalls: [{ id: "f1", name: "faysrv__lookup", arguments: { id: "7", tag } }] }, { text: "done" }];
    expect((await as(fay, "POST", `/threads/${id}/messages`, { content: "go", script })).status).toBe(202);
    await until(async () => (await callsOf(fay, id)).some((c) => c.callId === "f1" && c.status === "awaiting_approval"), "the approval to be asked");
    expect((await as(fay, "DELETE", "/mcp-servers/faysrv")).body).toEqual({ deleted: true });
    const approved = await as(fay, "POST", `/threads/${id}/calls/f1/approve`, {});
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    await until(async () => (await as<{ status: string }>(fay, "GET", `/threads/${id}`)).body.status === "idle", "the turn to end");
    expect((await callsOf(fay, id)).find((c) => c.callId === "f1")).toMatchObject({ status: "failed", result: { status: "error", error: expect.stringContaining('mcp server "faysrv" was removed or changed by its user after this call was made; nothing was sent') } });
    expect(await callsSeen(tag)).toBe(0);
  });
});

describe("a revoked OAuth connection", () => {
  it("is used by no open session: the next call parks for a new authorization", async () => {
    const cid = "own-srv-cid";
    const id = (await as<{ threadId: string }>(cid, "POST", "/threads", { agent: "remote_oauth" })).body.threadId;
    let calls = await turn(cid, id, [{ toolCalls: [{ id: "c", name: "oauthed__connect", arguments: {} }] }, { text: "waiting" }]);
    await authorize(calls.find((c) => c.callId === "c")!.parkReason, cid);
    await until(async () => (await callsOf(cid, id)).find((c) => c.callId === "c")!.status === "succeeded", "connect to finish");
    await stubOf(id).waitIdle();
    // The session is open and its token good at the server.
    calls = await turn(cid, id, [{ toolCalls: [{ id: "w1", name: "oauthed__whoami", arguments: {} }] }, { text: "done" }]);
    expect(calls.find((c) => c.callId === "w1")).toMatchObject({ status: "succeeded", result: { result: expect.stringMatching(/^you are own-srv-cid-there;/) } });

    // Revoked in weft only (the server would still take the token): the open session sends it no more.
    expect((await as(cid, "DELETE", "/account/mcp-connections/oauthed")).body).toEqual({ deleted: true });
    calls = await turn(cid, id, [{ toolCalls: [{ id: "w2", name: "oauthed__whoami", arguments: {} }] }, { text: "done" }]);
    expect(calls.find((c) => c.callId === "w2")).toMatchObject({ status: "parked", parkReason: expect.stringMatching(/^mcp_auth_required: mcp server "oauthed" needs your authorization: open https:\/\/as\.mcp\.test\/authorize\?/) });
    await as(cid, "POST", `/threads/${id}/stop`, {});
  });

  it("removing a user's OAuth server ends its sessions and its connection", async () => {
    const dee = "own-srv-dee";
    expect((await as(dee, "POST", "/mcp-servers", { name: "deesrv", url: "https://oauth.mcp.test/mcp", auth: { type: "oauth" } })).status).toBe(200);
    const id = await threadOf(dee);
    let calls = await turn(dee, id, [{ toolCalls: [{ id: "c", name: "deesrv__connect", arguments: {} }] }, { text: "waiting" }]);
    expect(calls.find((c) => c.callId === "c")).toMatchObject({ status: "parked" });
    await authorize(calls.find((c) => c.callId === "c")!.parkReason, dee);
    await until(async () => (await callsOf(dee, id)).find((c) => c.callId === "c")!.status === "succeeded", "connect to finish");
    await stubOf(id).waitIdle();
    calls = await turn(dee, id, [{ toolCalls: [{ id: "w1", name: "deesrv__whoami", arguments: {} }] }, { text: "done" }]);
    expect(calls.find((c) => c.callId === "w1")).toMatchObject({ status: "succeeded", result: { result: expect.stringMatching(/^you are own-srv-dee-there;/) } });
    expect((await as(dee, "GET", "/account/mcp-connections")).body.connections).toMatchObject([{ server: "deesrv" }]);

    // Removed: not offered, its connection gone; added again, it must be authorized again.
    expect((await as(dee, "DELETE", "/mcp-servers/deesrv")).body).toEqual({ deleted: true });
    calls = await turn(dee, id, [{ toolCalls: [{ id: "w2", name: "deesrv__whoami", arguments: {} }] }, { text: "done" }]);
    expect(calls.find((c) => c.callId === "w2")).toMatchObject({ status: "failed", result: { error: expect.stringContaining('unknown tool "deesrv__whoami"') } });
    expect((await as(dee, "GET", "/account/mcp-connections")).body.connections).toEqual([]);
    expect((await as(dee, "POST", "/mcp-servers", { name: "deesrv", url: "https://oauth.mcp.test/mcp", auth: { type: "oauth" } })).status).toBe(200);
    calls = await turn(dee, id, [{ toolCalls: [{ id: "w3", name: "deesrv__connect", arguments: {} }] }, { text: "done" }]);
    expect(calls.find((c) => c.callId === "w3")).toMatchObject({ status: "parked", parkReason: expect.stringContaining("https://as.mcp.test/authorize?") });
    await as(dee, "POST", `/threads/${id}/stop`, {});
    await as(dee, "DELETE", "/mcp-servers/deesrv");
  });
});
