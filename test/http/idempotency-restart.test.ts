import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { callsOf, createThread, inThread, json, keyed, until } from "../helpers.js";

describe("Idempotency-Key across a restart", () => {
  it("a keyed direct write cut by a restart after its effect: the retry under the key runs no second write", async () => {
    const session = await createThread({ agent: "guarantees" });
    const key = `key-${crypto.randomUUID()}`;
    const body = { input: { label: "charge", hang: true }, sessionId: session };
    const first = keyed("POST", "/v1/tools/effect_write", key, body).catch((e: unknown) => e);
    await until(async () => (await callsOf(session)).some((c) => c.toolName === "effect_write" && c.status === "started"), "the write to start");
    await inThread(session, (i) => i.ctx.abort("restart inside execute")).catch(() => undefined);
    await first;
    // The retry under the same key is the same request: it answers from the first call (which
    // the restart cut: a write is parked for a person), never by running the write again.
    const retry = keyed("POST", "/v1/tools/effect_write", key, body);
    let answer: { status: number; body: any } | undefined;
    void retry.then((r) => (answer = r));
    await until(async () => answer !== undefined || (await callsOf(session)).filter((c) => c.toolName === "effect_write").length > 1, "the retry to answer");
    const writes = (await callsOf(session)).filter((c) => c.toolName === "effect_write");
    expect(writes.map((c) => c.status)).toEqual(["parked"]);
    expect(answer).toMatchObject({ status: 202, body: { callId: writes[0]!.callId, status: "parked" } });
    expect(answer!.body).not.toHaveProperty("argsHash"); // only a call awaiting approval names one
    // A third request under the key gets the same answer.
    expect(await keyed("POST", "/v1/tools/effect_write", key, body)).toEqual(answer);
  });

  it("the same without a session: the retry finds the scratch thread the key named and its one call", async () => {
    const session = await createThread({ agent: "guarantees" });
    const userId = (await json("GET", `/threads/${session}`)).body.userId as string;
    const key = `key-${crypto.randomUUID()}`;
    const ns = (env as unknown as { THREAD: DurableObjectNamespace }).THREAD;
    const scratch = ns.idFromName(`idem:${JSON.stringify(["call", userId, key])}`).toString();
    const body = { input: { label: "scratch", hang: true } };
    const first = keyed("POST", "/v1/tools/effect_write", key, body).catch((e: unknown) => e);
    await until(async () => (await json("GET", `/threads/${scratch}/calls`)).body.calls?.some((c: { status: string }) => c.status === "started") === true, "the write to start");
    await inThread(scratch, (i) => i.ctx.abort("restart inside execute")).catch(() => undefined);
    await first;
    const retry = keyed("POST", "/v1/tools/effect_write", key, body);
    let answer: { status: number; body: any } | undefined;
    void retry.then((r) => (answer = r));
    await until(async () => answer !== undefined || (await callsOf(scratch)).length > 1, "the retry to answer");
    const writes = await callsOf(scratch);
    expect(writes.map((c) => c.status)).toEqual(["parked"]);
    expect(answer).toMatchObject({ status: 202, body: { callId: writes[0]!.callId, status: "parked", scratchWorkspace: true } });
  });
});
