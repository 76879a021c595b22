/**
 * The OAuth redirect back (`GET /mcp-oauth/callback`, src/http/mcp-oauth.ts) as an attacker
 * shapes it: an authorization response naming another issuer (the mix-up attack, RFC 9207), and
 * an authorization URL forwarded to another person. The servers are scripts/lib/fake-oauth.mjs.
 */
import { describe, expect, it } from "vitest";
import { type TestUser, json, request, stubOf, until } from "../helpers.js";

async function threadOf(as: TestUser): Promise<string> {
  const made = await json<{ threadId: string }>("POST", "/threads", { agent: "remote_oauth" }, as);
  expect(made.status).toBe(201);
  return made.body.threadId;
}

async function callsAs(threadId: string, as: TestUser) {
  return (await json<{ calls: Array<{ callId: string; status: string; parkReason?: string; result?: { result?: string } }> }>("GET", `/threads/${threadId}/calls`, undefined, as)).body.calls;
}

/** Starts a connection in a new thread of `as`; the authorization URL its parked call shows. */
async function authorizationUrlFor(as: TestUser): Promise<{ threadId: string; url: URL }> {
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

describe("the OAuth callback against a hostile redirect", () => {
  it("refuses an authorization response whose iss is not the authorization server that was asked (RFC 9207, mix-up)", async () => {
    const { url } = await authorizationUrlFor("alice");
    const back = await authorize(url, "alice-there");
    const mixed = await request(`${back}&iss=${encodeURIComponent("https://evil.example")}`, undefined, null);
    expect(mixed.status).toBe(400);
    expect(((await mixed.json()) as { error: unknown }).error).toMatchObject({ code: "invalid_request", details: { path: ["iss"] } });
    // Nothing was kept for alice.
    expect((await json("GET", "/account/mcp-connections", undefined, "alice")).body.connections).toEqual([]);
  });

  it("takes an iss equal to the authorization server", async () => {
    // alice, not tester: remote-oauth.test.ts connects tester to this server, and storage is shared across the run.
    const { threadId, url } = await authorizationUrlFor("alice");
    const back = await authorize(url, "alice-there");
    expect((await request(`${back}&iss=${encodeURIComponent("https://as.mcp.test")}`, undefined, null)).status).toBe(200);
    await until(async () => (await callsAs(threadId, "alice"))[0]!.status === "succeeded", "the connect call to finish");
    await stubOf(threadId).waitIdle();
  });

  // KNOWN HOLE (not fixed): the callback takes no weft credential, so whoever opens a user's
  // authorization URL links *their* account at the authorization server to that weft user. Bob
  // sends his URL to alice; she signs in there as herself; bob's threads now act with her token.
  // This test fails (marked `fails`) until the callback is bound to the browser of the user who
  // started the authorization (or asks that user to confirm it).
  it.fails("does not link another person's account when they follow a user's forwarded authorization URL", async () => {
    const { threadId, url } = await authorizationUrlFor("bob");
    // Alice's browser, with no weft credential (the callback takes none): her account there, bob's state.
    await request(await authorize(url, "alice-there"), undefined, null);
    await until(async () => (await callsAs(threadId, "bob"))[0]!.status !== "parked", "the connect call to end");
    await stubOf(threadId).waitIdle();
    expect((await json("POST", `/threads/${threadId}/messages`, { content: "who", script: [{ toolCalls: [{ id: "w", name: "oauthed__whoami", arguments: {} }] }, { text: "done" }] }, "bob")).status).toBe(202);
    await stubOf(threadId).waitIdle();
    // Today: "you are alice-there" in bob's thread.
    expect((await callsAs(threadId, "bob")).find((c) => c.callId === "w")?.result?.result ?? "").not.toContain("alice-there");
  });
});
