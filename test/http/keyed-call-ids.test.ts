/**
 * A direct call's id under an Idempotency-Key is keyed with the user's secret: who reads the id (a
 * reader of the thread, a provider handed the effect key) cannot test guesses of its input offline.
 * A call stored under the unkeyed id of before is still found by a retry of its request.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { accountOf } from "../../src/account/api.js";
import { sha256Hex } from "../../src/bytes.js";
import { keyedCallId } from "../../src/calls/call.js";
import { idempotencyClaim } from "../../src/http/idempotency.js";
import type { Caller, IdempotencyClaim } from "../../src/rpc.js";
import { callsOf, createThread, inThread, json, keyed, stubOf, until } from "../helpers.js";

const claimOf = async (key: string, name: string, body: unknown) => (await idempotencyClaim(new Headers({ "Idempotency-Key": key }), "POST", `/v1/tools/${name}`, body))!;

/** The id as weft made it before it was keyed: plain SHA-256 of the user, the key and the request's fingerprint. */
const unkeyedId = async (userId: string, claim: IdempotencyClaim, name: string) => `tool_${name}_${(await sha256Hex(`${userId}\n${claim.key}\n${claim.fingerprint}`)).slice(0, 24)}`;

describe("keyed direct calls' ids", () => {
  it("are not the plain hash of what a reader knows, and stay the same for a retry", async () => {
    const session = await createThread({ agent: "guarantees" });
    const userId = (await json("GET", `/threads/${session}`)).body.userId as string;
    const key = `key-${crypto.randomUUID()}`;
    const body = { input: { order: "PIN 1234" }, sessionId: session };
    const first = await keyed("POST", "/v1/tools/record_call", key, body);
    expect(first.status).toBe(200);
    const claim = await claimOf(key, "record_call", body);
    expect(first.body.callId).not.toBe(await unkeyedId(userId, claim, "record_call"));
    const userKey = await accountOf((env as unknown as { ACCOUNT: DurableObjectNamespace }).ACCOUNT, userId).callIdKey();
    expect(first.body.callId).toBe(await keyedCallId(userKey, userId, claim, "record_call", () => false));
    expect((await keyed("POST", "/v1/tools/record_call", key, body)).body.callId).toBe(first.body.callId);
    expect((await callsOf(session)).map((c) => c.callId)).toEqual([first.body.callId]);
  });

  it("a call stored under the unkeyed id (before ids were keyed) and cut by a restart is found by its request's retry, never run again", async () => {
    const session = await createThread({ agent: "guarantees" });
    const userId = (await json("GET", `/threads/${session}`)).body.userId as string;
    const owner: Caller = { userId, name: userId, roles: [], admin: false };
    const key = `key-${crypto.randomUUID()}`;
    const body = { input: { label: "charge", hang: true }, sessionId: session };
    const legacy = await unkeyedId(userId, await claimOf(key, "effect_write", body), "effect_write");
    // The first request as weft ran it before: its write started under the unkeyed id, then a deploy restarted the thread.
    void stubOf(session).callTool(owner, { toolName: "effect_write", input: body.input, callId: legacy }).catch(() => undefined);
    await until(async () => (await callsOf(session)).some((c) => c.callId === legacy && c.status === "started"), "the write to start");
    await inThread(session, (i) => i.ctx.abort("deploy")).catch(() => undefined);
    const retry = keyed("POST", "/v1/tools/effect_write", key, body);
    let answer: { status: number; body: any } | undefined;
    void retry.then((r) => (answer = r));
    await until(async () => answer !== undefined || (await callsOf(session)).length > 1, "the retry to answer");
    const writes = await callsOf(session);
    expect(writes.map((c) => `${c.callId} ${c.status}`)).toEqual([`${legacy} parked`]);
    expect(answer).toMatchObject({ status: 202, body: { callId: legacy, status: "parked" } });
  });
});
