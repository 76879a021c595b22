/**
 * Test users of their own (a JWT each), so an account holds only what one test puts there, and
 * requests made as them.
 */
import { env } from "cloudflare:workers";
import { SignJWT } from "jose";
import type { AccountApi } from "../../src/account/api.js";
import { expect } from "vitest";
import { request, stubOf } from "../helpers.js";

/** A user of its own with a token the test worker accepts. */
export async function freshUser(label = "usage"): Promise<{ userId: string; token: string }> {
  const userId = `${label}-${crypto.randomUUID()}`;
  const token = await new SignJWT({})
    .setProtectedHeader({ alg: "HS256" })
    .setIssuer("weft-tests")
    .setAudience("weft-test")
    .setSubject(userId)
    .setExpirationTime(Math.floor(Date.now() / 1000) + 3600)
    .sign(new TextEncoder().encode("weft-test-jwt-secret-not-for-production"));
  return { userId, token };
}

/** A JSON request as the user with `token`. */
export async function send(token: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await request(path, { method, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }, null);
  return { status: res.status, body: await res.json() };
}

/** The account Durable Object of `userId`, over RPC. */
export function accountOfUser(userId: string): AccountApi {
  const ns = (env as unknown as { ACCOUNT: DurableObjectNamespace }).ACCOUNT;
  return ns.get(ns.idFromName(userId)) as unknown as AccountApi;
}

/** Posts "go" to thread `id` as `token`'s user, waits until the thread is idle, and answers its `lastTurn`. */
export async function turnOf(token: string, id: string): Promise<any> {
  expect((await send(token, "POST", `/threads/${id}/messages`, { content: "go" })).status).toBe(202);
  await stubOf(id).waitIdle();
  return (await send(token, "GET", `/threads/${id}`)).body.lastTurn;
}
