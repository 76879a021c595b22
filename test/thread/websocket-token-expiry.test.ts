/**
 * A WebSocket's authorization expires with its token: a socket opened with a JWT is closed with
 * 1008 and a readable reason once the token's `exp` has passed, before any later frame reaches it;
 * a token already expired (yet inside the verifier's clock skew) opens no socket.
 */
import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import type { EventFrame } from "../../src/protocol.js";
import { createThread, inThread, request, runTurn, until } from "../helpers.js";

/** An HS256 token for the test user "tester" expiring at `exp` (epoch seconds). */
function tokenUntil(exp: number): Promise<string> {
  return new SignJWT({})
    .setProtectedHeader({ alg: "HS256" })
    .setIssuer("weft-tests")
    .setAudience("weft-test")
    .setSubject("tester")
    .setExpirationTime(exp)
    .sign(new TextEncoder().encode("weft-test-jwt-secret-not-for-production"));
}

async function open(threadId: string, token: string) {
  const res = await request(`/threads/${threadId}/ws?access_token=${token}`, { headers: { Upgrade: "websocket" } }, null);
  const ws = res.webSocket;
  if (!ws) return { status: res.status, body: await res.json<any>() };
  ws.accept();
  const frames: EventFrame[] = [];
  const closed: { code?: number; reason?: string } = {};
  ws.addEventListener("message", (e) => frames.push(JSON.parse(e.data as string) as EventFrame));
  ws.addEventListener("close", (e) => Object.assign(closed, { code: e.code, reason: e.reason }));
  return { status: res.status, ws, frames, closed };
}

describe("a WebSocket opened with a JWT", () => {
  it("is closed with 1008 and a readable reason once its token expires, before it gets another frame", async () => {
    const id = await createThread();
    const exp = Math.ceil(Date.now() / 1000) + 2;
    const sub = await open(id, await tokenUntil(exp));
    expect(sub.status).toBe(101);
    await runTurn(id, "before", [{ text: "live while the token holds" }]);
    await until(async () => sub.frames!.some((f) => f.type === "turn_finished"), "frames of the first turn");
    const seen = sub.frames!.length;
    expect(seen).toBeGreaterThan(0);

    await until(async () => Date.now() >= exp * 1000, "the token's exp");
    // The socket's expiry is read from its attachment (what hibernation keeps), as after a wake.
    await inThread(id, (instance) => instance.fanout.socketsChanged());
    await runTurn(id, "after", [{ text: "must not reach the expired socket" }]);
    await until(async () => sub.closed!.code !== undefined, "the server's close");
    expect(sub.closed).toEqual({ code: 1008, reason: "token expired: reconnect with a fresh token" });
    expect(sub.frames!.length).toBe(seen);

    // A fresh token opens again and replays what the expired one missed.
    const fresh = await open(id, await tokenUntil(Math.floor(Date.now() / 1000) + 300));
    expect(fresh.status).toBe(101);
    await until(async () => fresh.frames!.some((f) => JSON.stringify(f.data).includes("must not reach the expired socket")), "the replay");
    fresh.ws!.close(1000, "done");
  }, 120_000);

  it("whose token expired within the clock skew opens no socket: 401 token expired", async () => {
    const id = await createThread();
    const res = await open(id, await tokenUntil(Math.floor(Date.now() / 1000) - 5));
    expect([res.status, res.body?.error?.code, res.body?.error?.message]).toEqual([401, "unauthenticated", "token expired"]);
    // The chat route's own event feed is refused the same way, before the message is posted: a 401, not a 500.
    const token = await tokenUntil(Math.floor(Date.now() / 1000) - 5);
    const chat = await request(
      `/threads/${id}/chat`,
      { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify({ messages: [{ id: "u1", role: "user", parts: [{ type: "text", text: "hi" }] }] }) },
      null,
    );
    expect([chat.status, (await chat.json<any>()).error.code]).toEqual([401, "unauthenticated"]);
    expect(await inThread(id, (i) => i.ctx.storage.sql.exec("SELECT COUNT(*) AS n FROM inbox").one().n + i.ctx.storage.sql.exec("SELECT COUNT(*) AS n FROM messages").one().n)).toBe(0);
  });
});
