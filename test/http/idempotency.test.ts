import { evictDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { IDEMPOTENCY_MAX_KEYS, IDEMPOTENCY_WINDOW_MS } from "../../src/thread/store/idempotency.js";
import { callsOf, createThread, inThread, json as send, keyed, effectRuns, ledgerOf, messagesOf, rawStub, stubOf } from "../helpers.js";

const fresh = () => `key-${crypto.randomUUID()}`;

async function waitingCall(): Promise<string> {
  const id = await createThread({ agent: "guarantees" });
  await send("POST", `/threads/${id}/messages`, {
    content: "pay",
    script: [{ toolCalls: [{ id: "pay", name: "needs_ok", arguments: { amount: 500 } }] }, { text: "done" }],
  });
  await stubOf(id).waitIdle();
  return id;
}

describe("Idempotency-Key", () => {
  it("POST /threads: a retry answers the first thread; another body under the key is refused; keys are per user", async () => {
    const key = fresh();
    const first = await keyed("POST", "/threads", key, { agent: "guarantees" });
    expect(first.status).toBe(201);
    const again = await keyed("POST", "/threads", key, { agent: "guarantees" });
    expect(again).toEqual(first);
    const listed = (await send("GET", "/threads?limit=200")).body.threads.filter((t: any) => t.threadId === first.body.threadId);
    expect(listed).toHaveLength(1);

    const other = await keyed("POST", "/threads", key, { agent: "faults" });
    expect(other.status).toBe(422);
    expect(other.body.error).toMatchObject({ code: "idempotency_key_reused", details: { path: ["headers", "idempotency-key"] } });

    const alice = await keyed("POST", "/threads", key, { agent: "guarantees" }, "alice");
    expect(alice.status).toBe(201);
    expect(alice.body.threadId).not.toBe(first.body.threadId);
  });

  it("POST /threads/:id/messages: a retry, even after a restart, adds no second message; keys are per thread", async () => {
    const id = await createThread({ agent: "guarantees" });
    const key = fresh();
    const body = { content: "hello", script: [{ text: "hi there" }] };
    const first = await keyed("POST", `/threads/${id}/messages`, key, body);
    expect(first.status).toBe(202);
    await stubOf(id).waitIdle();
    await evictDurableObject(rawStub(id));
    expect(await keyed("POST", `/threads/${id}/messages`, key, body)).toEqual(first);
    await stubOf(id).waitIdle();
    expect((await messagesOf(id)).map((m) => `${m.role}:${m.content}`)).toEqual(["user:hello", "assistant:hi there"]);

    const changed = await keyed("POST", `/threads/${id}/messages`, key, { ...body, content: "hello!" });
    expect(changed.status).toBe(422);
    expect(changed.body.error.code).toBe("idempotency_key_reused");

    const elsewhere = await createThread({ agent: "guarantees" });
    expect((await keyed("POST", `/threads/${elsewhere}/messages`, key, body)).status).toBe(202);
  });

  it("two requests with one key at the same moment act once", async () => {
    const id = await createThread({ agent: "guarantees" });
    const key = fresh();
    const body = { content: "once", script: [{ text: "ok" }] };
    const answers = await Promise.all([keyed("POST", `/threads/${id}/messages`, key, body), keyed("POST", `/threads/${id}/messages`, key, body)]);
    for (const a of answers) {
      // Either the first answer again, or "still running, retry" with its code.
      if (a.status !== 202) expect(a).toMatchObject({ status: 409, body: { error: { code: "idempotency_key_in_use" } } });
    }
    expect(answers.some((a) => a.status === 202)).toBe(true);
    await stubOf(id).waitIdle();
    expect((await messagesOf(id)).filter((m) => m.role === "user")).toHaveLength(1);
  });

  it("approve and deny: a retry replays the decision instead of 409 call_not_waiting, and the write ran once", async () => {
    const id = await waitingCall();
    const key = fresh();
    const approved = await keyed("POST", `/threads/${id}/calls/pay/approve`, key, {});
    expect(approved).toMatchObject({ status: 200, body: { callId: "pay", status: "succeeded" } });
    await evictDurableObject(rawStub(id));
    expect(await keyed("POST", `/threads/${id}/calls/pay/approve`, key, {})).toEqual(approved);
    expect((await effectRuns(id, "pay")).runs).toBe(1);
    // Without the key it is the same person's approval again: answered as the call stands, not run again.
    expect(await send("POST", `/threads/${id}/calls/pay/approve`, {})).toMatchObject({ status: 200, body: { callId: "pay", status: "succeeded" } });
    expect((await effectRuns(id, "pay")).runs).toBe(1);

    const other = await waitingCall();
    const denied = await keyed("POST", `/threads/${other}/calls/pay/deny`, key, { reason: "no" });
    expect(denied).toMatchObject({ status: 200, body: { status: "denied" } });
    expect(await keyed("POST", `/threads/${other}/calls/pay/deny`, key, { reason: "no" })).toEqual(denied);
    expect((await keyed("POST", `/threads/${other}/calls/pay/deny`, key, { reason: "never" })).status).toBe(422);
  });

  it("direct calls, in a session and without one: a retry returns the first result and the write ran once", async () => {
    const session = await createThread({ agent: "guarantees" });
    const key = fresh();
    const body = { input: { label: "charge" }, sessionId: session };
    const first = await keyed("POST", "/v1/tools/effect_write", key, body);
    expect(first.status).toBe(200);
    expect(await keyed("POST", "/v1/tools/effect_write", key, body)).toEqual(first);
    expect((await callsOf(session)).filter((c) => c.toolName === "effect_write")).toHaveLength(1);
    expect((await ledgerOf(JSON.parse(first.body.result).effectKey)).runs).toBe(1);

    const scratchKey = fresh();
    const scratch = await keyed("POST", "/v1/tools/effect_write", scratchKey, { input: { label: "scratch" } });
    expect(scratch).toMatchObject({ status: 200, body: { scratchWorkspace: true, isError: false } });
    expect(await keyed("POST", "/v1/tools/effect_write", scratchKey, { input: { label: "scratch" } })).toEqual(scratch);
    expect((await ledgerOf(JSON.parse(scratch.body.result).effectKey)).runs).toBe(1);
    expect((await keyed("POST", "/v1/tools/effect_write", scratchKey, { input: { label: "other" } })).status).toBe(422);
  });

  it("a key that is empty, too long or not visible ASCII is a 400 naming the header", async () => {
    const id = await createThread({ agent: "guarantees" });
    for (const key of ["", "x".repeat(256), "a b"]) {
      const res = await keyed("POST", `/threads/${id}/messages`, key, { content: "x" });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: "invalid_request", details: { path: ["headers", "idempotency-key"] } });
    }
    expect((await messagesOf(id)).length).toBe(0);
  });

  it("keys expire after the window, at most the documented number is kept, and big answers are stored in chunks under the row limit", async () => {
    const id = await createThread({ agent: "guarantees" });
    await inThread(id, (i) => {
      const store = i.store.idempotency;
      const claim = { key: "old", fingerprint: "f" };
      store.claim("tester", claim, 1_000);
      store.answer("tester", claim, { ok: true, value: "x".repeat(3 * 1024 * 1024) });
      expect(store.claim("tester", claim, 2_000)).toMatchObject({ state: "answered" });
      // Past the window the old answer is gone: the key acts again.
      expect(store.claim("tester", claim, 1_000 + IDEMPOTENCY_WINDOW_MS + 1)).toEqual({ state: "claimed", cut: false });
      const now = 10 * IDEMPOTENCY_WINDOW_MS;
      // Answered keys go oldest first; one whose request still runs stays (idempotency-eviction.test.ts).
      for (let k = 0; k < IDEMPOTENCY_MAX_KEYS + 5; k++) {
        store.claim("tester", { key: `k${k}`, fingerprint: "f" }, now + k);
        store.answer("tester", { key: `k${k}`, fingerprint: "f" }, { ok: true, value: k });
      }
      const rows = i.ctx.storage.sql.exec("SELECT COUNT(*) AS n FROM idempotency").one().n;
      expect(rows).toBe(IDEMPOTENCY_MAX_KEYS);
      const biggest = i.ctx.storage.sql.exec("SELECT MAX(LENGTH(data)) AS n FROM idempotency_chunks").one().n;
      expect(biggest ?? 0).toBeLessThan(2 * 1024 * 1024);
    });
  });
});
