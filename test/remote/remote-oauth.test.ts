/**
 * OAuth 2.1 per user to a remote MCP server (the MCP SDK's `McpServer` behind the authorization
 * server of scripts/lib/fake-oauth.mjs): discovery, registration, PKCE, the parked call with its
 * authorization URL, the redirect back and its completion by the same user, the call going on after the thread was evicted, tokens
 * kept per user encrypted in the account, refreshed before expiry and on 401, revoked; and the
 * hostile checks (state, redirect URI, plain-http authorization servers).
 */
import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { type TestUser, callsOf, eventsOf, json, rawStub, request, runTurn, stubOf, until } from "../helpers.js";
import { completeAs, postCompletion } from "./oauth-flow.js";

const accountStub = (userId: string) => {
  const ns = (env as unknown as { ACCOUNT: DurableObjectNamespace }).ACCOUNT;
  return ns.get(ns.idFromName(userId));
};

async function threadOf(as: TestUser): Promise<string> {
  const made = await json<{ threadId: string }>("POST", "/threads", { agent: "remote_oauth" }, as);
  expect(made.status).toBe(201);
  return made.body.threadId;
}

/** Posts a message with a script as `as` and waits until the thread is idle. */
async function turnAs(threadId: string, as: TestUser, content: string, script: unknown[]): Promise<void> {
  expect((await json("POST", `/threads/${threadId}/messages`, { content, script }, as)).status).toBe(202);
  await stubOf(threadId).waitIdle();
}

async function callsAs(threadId: string, as: TestUser) {
  return (await json<{ calls: Array<{ callId: string; status: string; parkReason?: string; result?: { status: string; result?: string; error?: string } }> }>("GET", `/threads/${threadId}/calls`, undefined, as)).body.calls;
}

/** The authorization URL in a parked call's reason. */
function authorizationUrlOf(reason: string | undefined): URL {
  const m = /open (https:\/\/\S+)/.exec(reason ?? "");
  if (!m) throw new Error(`no authorization URL in ${reason}`);
  return new URL(m[1]!);
}

/** Follows the authorization URL as the authorization server's user `login`; returns weft's redirect target (path and query). */
async function authorize(url: URL, login: string): Promise<string> {
  const signIn = new URL(url);
  signIn.searchParams.set("login", login);
  const answer = await fetch(signIn, { redirect: "manual" });
  expect(answer.status).toBe(302);
  const back = new URL(answer.headers.get("location")!);
  expect(back.origin + back.pathname).toBe("https://weft.test/mcp-oauth/callback");
  return back.pathname + back.search;
}

const oauthLog = async () => (await fetch("https://as.mcp.test/__oauth")).json() as Promise<{ tokenRequests: number; refreshes: number; registrations: number; refused: string[] }>;

describe("OAuth 2.1 connections to remote MCP servers", () => {
  it("parks the call with an authorization URL, and goes on after the user authorized, across an eviction", async () => {
    const id = await threadOf("tester");
    await runTurn(id, "who am I there", [{ toolCalls: [{ id: "c", name: "oauthed__connect", arguments: {} }] }, { toolCalls: [{ id: "w", name: "oauthed__whoami", arguments: {} }] }, { text: "done" }]);
    const [parked] = await callsOf(id);
    expect(parked).toMatchObject({ callId: "c", status: "parked", parkReason: expect.stringMatching(/^mcp_auth_required: mcp server "oauthed" needs your authorization: open https:\/\/as\.mcp\.test\/authorize\?/) });
    const url = authorizationUrlOf(parked!.parkReason);
    // PKCE S256, the fixed redirect URI, the resource indicator, a state.
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    expect(url.searchParams.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get("redirect_uri")).toBe("https://weft.test/mcp-oauth/callback");
    expect(url.searchParams.get("resource")).toBe("https://oauth.mcp.test/mcp");
    expect(url.searchParams.get("state")).toBeTruthy();

    // The thread and the account are evicted between the authorization URL and the redirect back.
    await evictDurableObject(rawStub(id));
    await evictDurableObject(accountStub("tester"));
    const back = await authorize(url, "tester-at-server");
    const done = await completeAs(back, "tester");
    expect(done.status).toBe(200);
    expect(await done.json()).toEqual({ connected: true, server: "oauthed", threadId: id });

    await until(async () => (await callsOf(id)).some((c) => c.callId === "w" && c.status === "succeeded"), "the call after authorization to succeed");
    await stubOf(id).waitIdle();
    const calls = await callsOf(id);
    expect(calls.find((c) => c.callId === "c")).toMatchObject({ status: "succeeded", result: { result: expect.stringContaining("connected") } });
    const who = calls.find((c) => c.callId === "w")!;
    expect(who.result!.result).toMatch(/^you are tester-at-server; you sent Bearer \[redacted\]/);
    expect(JSON.stringify(calls)).not.toMatch(/at-[0-9a-f-]{36}/);
    expect(JSON.stringify(await eventsOf(id))).not.toMatch(/at-[0-9a-f-]{36}|rt-[0-9a-f-]{36}/);
    // The redirect is used once.
    expect((await postCompletion(back, "tester")).status).toBe(400);

    // Kept encrypted at rest: the account's rows hold no token in the clear.
    const rows = await runInDurableObject(accountStub("tester"), (_i, state) => JSON.stringify(state.storage.sql.exec("SELECT * FROM account_mcp_tokens").toArray()));
    expect(rows).toContain("oauth.mcp.test");
    expect(rows).not.toMatch(/at-[0-9a-f-]{36}|rt-[0-9a-f-]{36}/);

    // Another thread of the same user, after both objects were evicted again, uses the connection at once.
    await evictDurableObject(accountStub("tester"));
    const other = await threadOf("tester");
    await runTurn(other, "again", [{ toolCalls: [{ id: "w2", name: "oauthed__whoami", arguments: {} }] }, { text: "done" }]);
    expect((await callsOf(other))[0]).toMatchObject({ status: "succeeded", result: { result: expect.stringMatching(/^you are tester-at-server;/) } });
    const listed = await json("GET", "/account/mcp-connections");
    expect(listed.body.connections).toMatchObject([{ server: "oauthed", url: "https://oauth.mcp.test/mcp" }]);
    expect(JSON.stringify(listed.body)).not.toMatch(/at-|rt-/);
  });

  it("refreshes a token the server refuses (401) and one near its expiry; a revoked connection asks again", async () => {
    const id = await threadOf("alice");
    await turnAs(id, "alice", "connect", [{ toolCalls: [{ id: "c", name: "oauthed__connect", arguments: {} }] }, { text: "waiting" }]);
    const url = authorizationUrlOf((await callsAs(id, "alice"))[0]!.parkReason);
    expect((await completeAs(await authorize(url, "alice-there"), "alice")).status).toBe(200);
    await until(async () => (await callsAs(id, "alice"))[0]!.status === "succeeded", "connect to finish");
    await stubOf(id).waitIdle();

    const before = await oauthLog();
    await fetch("https://as.mcp.test/__oauth/expire", { method: "POST" });
    await turnAs(id, "alice", "who", [{ toolCalls: [{ id: "w1", name: "oauthed__whoami", arguments: {} }] }, { text: "done" }]);
    const w1 = (await callsAs(id, "alice")).find((c) => c.callId === "w1")!;
    expect(w1).toMatchObject({ status: "succeeded", result: { result: expect.stringMatching(/^you are alice-there;/) } });
    expect((await oauthLog()).refreshes).toBeGreaterThan(before.refreshes);

    // Tokens living 30 s are inside the refresh margin (60 s): refreshed before they are sent.
    await fetch("https://as.mcp.test/__oauth/lifetime?s=30");
    try {
      await fetch("https://as.mcp.test/__oauth/expire", { method: "POST" });
      await turnAs(id, "alice", "who", [{ toolCalls: [{ id: "w2", name: "oauthed__whoami", arguments: {} }] }, { text: "done" }]);
      const afterShort = await oauthLog();
      await turnAs(id, "alice", "who", [{ toolCalls: [{ id: "w3", name: "oauthed__lookup", arguments: { id: "9" } }] }, { text: "done" }]);
      // A list or a call in this turn asked for the token again, and the account refreshed it first.
      expect((await oauthLog()).refreshes).toBeGreaterThan(afterShort.refreshes);
      expect((await callsAs(id, "alice")).find((c) => c.callId === "w3")).toMatchObject({ status: "succeeded" });
    } finally {
      await fetch("https://as.mcp.test/__oauth/lifetime?s=3600");
    }

    // Revoked: the tokens are gone, and the next call parks for a new authorization.
    expect((await json("DELETE", "/account/mcp-connections/oauthed", undefined, "alice")).body).toEqual({ deleted: true });
    expect((await json("GET", "/account/mcp-connections", undefined, "alice")).body.connections).toEqual([]);
    await fetch("https://as.mcp.test/__oauth/expire", { method: "POST" });
    await turnAs(id, "alice", "who", [{ toolCalls: [{ id: "w4", name: "oauthed__whoami", arguments: {} }] }, { text: "done" }]);
    expect((await callsAs(id, "alice")).find((c) => c.callId === "w4")).toMatchObject({ status: "parked", parkReason: expect.stringContaining("https://as.mcp.test/authorize") });
    await json("POST", `/threads/${id}/stop`, {}, "alice");
  });

  it("never gives one user's token to another user, and binds the state to its user and thread", async () => {
    const bobs = await threadOf("bob");
    await turnAs(bobs, "bob", "who", [{ toolCalls: [{ id: "c", name: "oauthed__connect", arguments: {} }] }, { text: "waiting" }]);
    const bobUrl = authorizationUrlOf((await callsAs(bobs, "bob"))[0]!.parkReason);
    // Bob has no connection of his own (tester's and alice's are theirs).
    expect((await json("GET", "/account/mcp-connections", undefined, "bob")).body.connections).toEqual([]);

    const state = bobUrl.searchParams.get("state")!;
    const back = new URL(`https://weft.test${await authorize(bobUrl, "bob-there")}`);
    const code = back.searchParams.get("code")!;
    // The state is sealed: the authorization server reads neither the user nor the thread in it.
    const decoded = state.split(".").map((part) => atob(part.replace(/-/g, "+").replace(/_/g, "/"))).join("");
    expect(decoded).not.toContain("bob");
    expect(decoded).not.toContain(bobs);
    // A state altered anywhere is refused, as is one missing.
    const [iv, sealed] = state.split(".");
    const flipped = `${sealed!.slice(0, 10)}${sealed![10] === "A" ? "B" : "A"}${sealed!.slice(11)}`;
    for (const bad of [`${iv}.${flipped}`, `${iv}.${sealed}x`, `${iv!.slice(1)}A.${sealed}`, "nonsense"]) {
      const path = `/mcp-oauth/callback?code=${code}&state=${encodeURIComponent(bad)}`;
      for (const answer of [await request(path, undefined, null), await postCompletion(path, "bob")]) {
        expect(answer.status).toBe(400);
        expect(((await answer.json()) as { error: unknown }).error).toMatchObject({ code: "invalid_request", details: { path: ["state"] } });
      }
    }
    expect((await request(`/mcp-oauth/callback?code=${code}`, undefined, null)).status).toBe(400);
    // The genuine one connects bob, and only bob.
    expect((await completeAs(back.pathname + back.search, "bob")).status).toBe(200);
    await until(async () => (await callsAs(bobs, "bob"))[0]!.status === "succeeded", "bob's connect to finish");
    await stubOf(bobs).waitIdle();
    await turnAs(bobs, "bob", "who", [{ toolCalls: [{ id: "w", name: "oauthed__whoami", arguments: {} }] }, { text: "done" }]);
    expect((await callsAs(bobs, "bob")).find((c) => c.callId === "w")!.result!.result).toMatch(/^you are bob-there;/);

    // A redirect URI other than weft's fixed one is refused by the authorization server (exact match).
    const other = new URL(bobUrl);
    other.searchParams.set("redirect_uri", "https://attacker.example/cb");
    expect((await fetch(other, { redirect: "manual" })).status).toBe(400);
  });

  it("uses a pre-registered client where the server offers no registration", async () => {
    const id = await threadOf("tester");
    await runTurn(id, "connect", [{ toolCalls: [{ id: "c", name: "oauthpre__connect", arguments: {} }] }, { toolCalls: [{ id: "w", name: "oauthpre__whoami", arguments: {} }] }, { text: "done" }]);
    const url = authorizationUrlOf((await callsOf(id))[0]!.parkReason);
    expect(url.origin).toBe("https://aspre.mcp.test");
    expect(url.searchParams.get("client_id")).toBe("weft-pre");
    expect((await completeAs(await authorize(url, "pre-user"), "tester")).status).toBe(200);
    await until(async () => (await callsOf(id)).some((c) => c.callId === "w" && c.status === "succeeded"), "the call after authorization");
    expect((await callsOf(id)).find((c) => c.callId === "w")!.result!.result).toMatch(/^you are pre-user;/);
    expect(JSON.stringify(await eventsOf(id))).not.toContain("pre-secret-123");
    await stubOf(id).waitIdle();
  });

  it("refuses an authorization server on plain http: an error result, no URL, nothing parked", async () => {
    const id = await threadOf("tester");
    await runTurn(id, "connect", [{ toolCalls: [{ id: "c", name: "oauthhttp__connect", arguments: {} }] }, { text: "done" }]);
    const [call] = await callsOf(id);
    expect(call).toMatchObject({ status: "failed", result: { error: expect.stringMatching(/^mcp_refused: .*http:\/\/as\.mcp\.test is not https/) } });
  });
});
