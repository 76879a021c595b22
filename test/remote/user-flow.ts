/**
 * Helpers of the tests of OAuth connections made by JWT users (each test file uses subjects of its
 * own): requests as a user, a turn of the `stepper` agent, and an authorization followed at the
 * fake authorization server and completed as the callback page does (its `iss` included).
 */
import { SignJWT } from "jose";
import { expect } from "vitest";
import { request, stubOf } from "../helpers.js";

const SECRET = new TextEncoder().encode("weft-test-jwt-secret-not-for-production");

async function tokenOf(sub: string): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ name: sub, roles: [] }).setProtectedHeader({ alg: "HS256" }).setSubject(sub).setIssuer("weft-tests").setAudience("weft-test").setIssuedAt(now - 60).setExpirationTime(now + 3600).sign(SECRET);
}

/** Sends JSON as the JWT user `sub`. */
export async function as<T = any>(sub: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const headers: Record<string, string> = { authorization: `Bearer ${await tokenOf(sub)}`, ...(body !== undefined ? { "content-type": "application/json" } : {}) };
  const res = await request(path, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) }, null);
  return { status: res.status, body: (await res.json()) as T };
}

export type Call = { callId: string; toolName: string; status: string; parkReason?: string; result?: { status: string; result?: string; error?: string } };

/** The calls of `threadId` as `sub` sees them. */
export const callsOf = async (sub: string, threadId: string): Promise<Call[]> => (await as<{ calls: Call[] }>(sub, "GET", `/threads/${threadId}/calls`)).body.calls;

/** A new thread of `agent` owned by `sub`. */
export async function threadOf(sub: string, agent = "stepper"): Promise<string> {
  const made = await as<{ threadId: string }>(sub, "POST", "/threads", { agent });
  expect(made.status).toBe(201);
  return made.body.threadId;
}

/** One scripted turn; the calls after it. */
export async function turn(sub: string, threadId: string, script: unknown[]): Promise<Call[]> {
  expect((await as(sub, "POST", `/threads/${threadId}/messages`, { content: "go", script })).status).toBe(202);
  await stubOf(threadId).waitIdle();
  return callsOf(sub, threadId);
}

/** Waits for `check` with a generous deadline. */
export async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The authorization URL a park reason names. */
export function authorizationUrlOf(parkReason: string | undefined): URL {
  const m = /open (https:\/\/\S+)/.exec(parkReason ?? "");
  if (!m) throw new Error(`no authorization URL in ${parkReason}`);
  return new URL(m[1]!);
}

/** Signs in at the authorization URL of `parkReason` as `login`: the redirect back to weft (path and query). */
export async function signIn(parkReason: string | undefined, login: string): Promise<URL> {
  const url = authorizationUrlOf(parkReason);
  url.searchParams.set("login", login);
  const answer = await fetch(url, { redirect: "manual" });
  expect(answer.status).toBe(302);
  return new URL(answer.headers.get("location")!);
}

/** Posts the completion of `back` as `sub` (state, code and iss as the page does). */
export async function complete(sub: string, back: URL, code = back.searchParams.get("code")): Promise<{ status: number; body: any }> {
  const iss = back.searchParams.get("iss");
  return as(sub, "POST", "/mcp-oauth/complete", { state: back.searchParams.get("state"), code, ...(iss !== null ? { iss } : {}) });
}

/** Signs in and completes as `sub`; expects it to succeed. */
export async function authorize(parkReason: string | undefined, sub: string): Promise<void> {
  const done = await complete(sub, await signIn(parkReason, `${sub}-there`));
  expect(done.status).toBe(200);
}
