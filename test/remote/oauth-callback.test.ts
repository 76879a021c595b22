/**
 * The OAuth redirect back (`GET /mcp-oauth/callback` and `POST /mcp-oauth/complete`,
 * src/http/mcp-oauth.ts) as an attacker shapes it: an authorization response naming another
 * issuer (the mix-up attack, RFC 9207), and an authorization URL forwarded to another person, who
 * approves it with their own account. The servers are scripts/lib/fake-oauth.mjs.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { type TestUser, json, request, stubOf, until } from "../helpers.js";
import { completeAs, openCallbackPage, postCompletion } from "./oauth-flow.js";
import { as as userAs, authorizationUrlOf, threadOf as userThread, turn as userTurn } from "./user-flow.js";

async function threadOf(as: TestUser): Promise<string> {
  const made = await json<{ threadId: string }>("POST", "/threads", { agent: "remote_oauth" }, as);
  expect(made.status).toBe(201);
  return made.body.threadId;
}

async function callsAs(threadId: string, as: TestUser) {
  return (await json<{ calls: Array<{ callId: string; status: string; parkReason?: string; result?: { result?: string } }> }>("GET", `/threads/${threadId}/calls`, undefined, as)).body.calls;
}

/**
 * Starts a connection in a new thread of `as`; the authorization URL its parked call shows. Any
 * connection `as` holds is revoked first: the files of this suite share storage, in any order.
 */
async function authorizationUrlFor(as: TestUser): Promise<{ threadId: string; url: URL }> {
  await json("DELETE", "/account/mcp-connections/oauthed", undefined, as);
  const threadId = await threadOf(as);
  expect((await json("POST", `/threads/${threadId}/messages`, { content: "connect", script: [{ toolCalls: [{ id: "c", name: "oauthed__connect", arguments: {} }] }, { text: "waiting" }] }, as)).status).toBe(202);
  await stubOf(threadId).waitIdle();
  const m = /open (https:\/\/\S+)/.exec((await callsAs(threadId, as))[0]?.parkReason ?? "");
  if (!m) throw new Error("no authorization URL");
  return { threadId, url: new URL(m[1]!) };
}

/** Follows `url` at the authorization server as its user `login`; weft's callback path and query. */
async function authorize(url: URL, login: string): Promise<string> {
  const signIn = new URL(url);
  signIn.searchParams.set("login", login);
  const answer = await fetch(signIn, { redirect: "manual" });
  expect(answer.status).toBe(302);
  const back = new URL(answer.headers.get("location")!);
  return back.pathname + back.search;
}

const accountStub = (userId: string) => {
  const ns = (env as unknown as { ACCOUNT: DurableObjectNamespace }).ACCOUNT;
  return ns.get(ns.idFromName(userId));
};

/** `back` (path and query) with its `iss` replaced (the fake authorization server sends one). */
function withIss(back: string, iss: string): string {
  const url = new URL(back, "https://weft.test");
  url.searchParams.set("iss", iss);
  return url.pathname + url.search;
}

const oauthLog = async () => (await fetch("https://as.mcp.test/__oauth")).json() as Promise<{ tradedCodes: string[] }>;

describe("the OAuth callback against a hostile redirect", () => {
  it("refuses an authorization response whose iss is not the authorization server that was asked (RFC 9207, mix-up)", async () => {
    const { url } = await authorizationUrlFor("alice");
    const back = await authorize(url, "alice-there");
    const mixed = await completeAs(withIss(back, "https://evil.example"), "alice");
    expect(mixed.status).toBe(400);
    expect(((await mixed.json()) as { error: unknown }).error).toMatchObject({ code: "invalid_request", details: { path: ["iss"] } });
    // Nothing was kept for alice.
    expect((await json("GET", "/account/mcp-connections", undefined, "alice")).body.connections).toEqual([]);
  });

  it("takes an iss equal to the authorization server", async () => {
    const { threadId, url } = await authorizationUrlFor("alice");
    const back = await authorize(url, "alice-there");
    expect((await completeAs(withIss(back, "https://as.mcp.test"), "alice")).status).toBe(200);
    await until(async () => (await callsAs(threadId, "alice"))[0]!.status === "succeeded", "the connect call to finish");
    await stubOf(threadId).waitIdle();
    expect((await json("DELETE", "/account/mcp-connections/oauthed", undefined, "alice")).body).toEqual({ deleted: true });
  });

  it("answers a page that exchanges nothing, names the user, keeps the code out of caches and referrers, and cannot be framed", async () => {
    const { url } = await authorizationUrlFor("bob");
    const back = await authorize(url, "bob-there");
    const { res, html } = await openCallbackPage(back);
    expect(res.headers.get("content-security-policy")).toMatch(/^default-src 'none'; script-src 'sha256-[A-Za-z0-9+/]{43}='; .*connect-src 'self'.*frame-ancestors 'none'/);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    // It names no one: the authorization server, which sent the browser here, learns nothing of the user.
    expect(html).not.toContain("bob");
    // The script reads the code from the address it then drops; the page itself does not hold it.
    expect(html).not.toContain(new URL(back, "https://weft.test").searchParams.get("code")!);
    // Opening the page traded nothing (its own code: other files trade theirs with the same server meanwhile).
    expect((await oauthLog()).tradedCodes).not.toContain(new URL(back, "https://weft.test").searchParams.get("code"));
    expect((await json("GET", "/account/mcp-connections", undefined, "bob")).body.connections).toEqual([]);
    // Completing it needs a weft credential.
    const anonymous = await postCompletion(back, null);
    expect([anonymous.status, ((await anonymous.json()) as { error: { code: string } }).error.code]).toEqual([401, "unauthenticated"]);
  });

  // Bob forwards his authorization URL to alice; she approves it at the authorization server with
  // her own account there. Before the completion was bound to bob's credential, opening the
  // redirect back connected her account to bob's threads ("you are alice-there" in bob's thread).
  it("does not link another person's account when they follow a user's forwarded authorization URL", async () => {
    const { threadId, url } = await authorizationUrlFor("bob");
    const back = await authorize(url, "alice-there");
    const code = new URL(back, "https://weft.test").searchParams.get("code");
    // Alice's browser follows the redirect back (no weft credential): nothing is exchanged or kept.
    const page = await request(back, undefined, null);
    expect((await oauthLog()).tradedCodes).not.toContain(code);
    expect((await json("GET", "/account/mcp-connections", undefined, "bob")).body.connections).toEqual([]);
    // Its completion with her own weft credential (or an admin's) is refused.
    expect(await page.text()).not.toContain("bob");
    for (const who of ["alice", "root"] as const) {
      const refused = await postCompletion(back, who);
      expect([who, refused.status]).toEqual([who, 403]);
      expect(((await refused.json()) as { error: unknown }).error).toMatchObject({ code: "mcp_wrong_user", details: { path: ["state"] } });
    }
    // No code was exchanged and no token kept, for bob or for alice; bob's call still waits.
    expect((await oauthLog()).tradedCodes).not.toContain(code);
    expect((await json("GET", "/account/mcp-connections", undefined, "bob")).body.connections).toEqual([]);
    const rows = await runInDurableObject(accountStub("bob"), (_i, state) => state.storage.sql.exec("SELECT count(*) AS n FROM account_mcp_tokens").one().n);
    expect(rows).toBe(0);
    expect((await callsAs(threadId, "bob"))[0]).toMatchObject({ callId: "c", status: "parked" });
    expect((await json("POST", `/threads/${threadId}/messages`, { content: "who", script: [{ toolCalls: [{ id: "w", name: "oauthed__whoami", arguments: {} }] }, { text: "done" }] }, "bob")).status).toBe(202);
    await stubOf(threadId).waitIdle();
    // Bob's thread still has no connection: the server's tools are not his to call, and nothing there is alice's.
    const calls = await callsAs(threadId, "bob");
    expect(calls[0]).toMatchObject({ callId: "c", status: "parked" });
    expect(calls.find((c) => c.callId === "w")?.status).not.toBe("succeeded");
    expect(JSON.stringify(calls)).not.toContain("alice-there");
  });

  it("lets the user who started it complete it after another user was refused, once", async () => {
    const { threadId, url } = await authorizationUrlFor("bob");
    const back = await authorize(url, "bob-there");
    expect((await postCompletion(back, "alice")).status).toBe(403);
    // The refusal left the authorization open for bob; his completion takes it, and only once.
    expect((await completeAs(back, "bob")).status).toBe(200);
    expect((await postCompletion(back, "bob")).status).toBe(400);
    await until(async () => (await callsAs(threadId, "bob"))[0]!.status === "succeeded", "bob's connect call to finish");
    await stubOf(threadId).waitIdle();
    expect((await json("GET", "/account/mcp-connections", undefined, "bob")).body.connections).toMatchObject([{ server: "oauthed" }]);
    expect((await json("DELETE", "/account/mcp-connections/oauthed", undefined, "bob")).body).toEqual({ deleted: true });
  });
});

describe("a long user id", () => {
  it("gets a state its own routes accept (a JWT sub of 1,400 characters)", async () => {
    const u = `hlong-${"x".repeat(1400)}`;
    expect((await userAs(u, "POST", "/mcp-servers", { name: "mine", url: "https://oauth.mcp.test/mcp", auth: { type: "oauth" } })).status).toBe(200);
    const id = await userThread(u, "remote_oauth");
    const calls = await userTurn(u, id, [{ toolCalls: [{ id: "c", name: "mine__connect", arguments: {} }] }, { text: "waiting" }]);
    const state = authorizationUrlOf(calls.find((c) => c.callId === "c")!.parkReason).searchParams.get("state")!;
    expect(state.length).toBeGreaterThan(2048);
    expect((await request(`/mcp-oauth/callback?code=anything&state=${encodeURIComponent(state)}`, undefined, null)).status).toBe(200);
    await userAs(u, "POST", `/threads/${id}/stop`, {});
    await stubOf(id).waitIdle();
  });
});
