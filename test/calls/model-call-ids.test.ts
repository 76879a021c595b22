/**
 * A call id the model sends is kept unless it could not stand as sent (found by hostile reviews):
 * - "", "." and ".." are no URL path segment of their own (URLs remove dot segments, in any
 *   spelling: `%2E%2E` too): a call so named that waits for approval could never be decided, and
 *   its turn waited until stopped;
 * - `<id>.invoke<n>` and `<id>.queue<n>` are the ids of a call's children, and `tool_...` a direct
 *   call's (a keyed one's can be computed): the model's call took the id first, and the child or
 *   the direct call found it as its own (its result, its write never run);
 * - the same for a call the provider ran itself (an endpoint names those too);
 * - a lone surrogate is stored as U+FFFD: the call's id in memory no longer found its row (the turn
 *   failed, or its tool message answered an id the assistant's call did not have).
 */
import { env } from "cloudflare:workers";
import { expect, it } from "vitest";
import { fakeEnv, fakeKey, scriptFake } from "../fake-provider.js";
import { keyedCallId } from "../../src/calls/call.js";
import { accountOf } from "../../src/account/api.js";
import type { IdempotencyClaim } from "../../src/rpc.js";
import { idempotencyClaim } from "../../src/http/idempotency.js";
import { callsOf, createThread, json, keyed, messagesOf, runTurn, stubOf, testClient } from "../helpers.js";

/** The id a keyed direct call of the test user gets (computed here with the user's key, which no reader has). */
const keyedId = async (claim: IdempotencyClaim, toolName: string) =>
  keyedCallId(await accountOf((env as unknown as { ACCOUNT: DurableObjectNamespace }).ACCOUNT, "tester").callIdKey(), "tester", claim, toolName, () => false);

it("calls the model names '.' or '..' are renamed model_<id>, and weft/client decides them", async () => {
  const id = await createThread({ agent: "guarantees" });
  const ids = ["..", "."];
  await json("POST", `/threads/${id}/messages`, {
    content: "pay",
    script: [{ toolCalls: ids.map((callId) => ({ id: callId, name: "needs_ok", arguments: { amount: 500 } })) }, { text: "all done" }],
  });
  await stubOf(id).waitIdle();
  const calls = await callsOf(id);
  expect(calls.map((c) => `${c.callId}:${c.status}`).sort()).toEqual(["model_..:awaiting_approval", "model_.:awaiting_approval"]);

  const weft = testClient();
  expect(await weft.approve(id, "model_..")).toMatchObject({ callId: "model_..", status: "succeeded" });
  expect(await weft.deny(id, "model_.")).toMatchObject({ callId: "model_.", status: "denied" });
  await stubOf(id).waitIdle();
  expect((await json("GET", `/threads/${id}`)).body.lastTurn.status).toBe("completed");
});

it("a model's id in a call's child form is renamed: the child's write runs under its own id", async () => {
  const id = await createThread({ agent: "code_children" });
  await runTurn(id, "go", [
    {
      toolCalls: [
        { id: "p1.invoke1", name: "record_call", arguments: { order: "Z" } },
        { id: "p1", name: "code_then_transient", arguments: { via: "code" } },
        { id: "p1.queue2", name: "record_call", arguments: { order: "Y" } },
      ],
    },
    { text: "done" },
  ]);
  const writes = (await callsOf(id)).filter((c) => c.toolName === "record_call").map((w) => `${w.callId} ${w.result?.result}`);
  expect(writes.sort()).toEqual(['p1.invoke1 {"order":"A"}', 'p1.invoke2 {"order":"B"}', 'p1_invoke1 {"order":"Z"}', 'p1_queue2 {"order":"Y"}']);
});

it("a provider's call id with a lone surrogate is stored as its well-formed form, and the turn goes on with it", async () => {
  const key = fakeKey("surrogate-ids");
  await scriptFake(key, [{ toolCalls: [{ id: "w\ud800", name: "record_call", arguments: '{"order":"X"}' }, { id: "a\udc00b", name: "needs_ok", arguments: '{"amount":500}' }] }, { text: "done" }]);
  const id = await createThread({ agent: "guarantees", env: fakeEnv("openai-compatible:any", key) });
  await json("POST", `/threads/${id}/messages`, { content: "pay" });
  await stubOf(id).waitIdle();
  const calls = await callsOf(id);
  expect(calls.map((c) => `${c.callId}:${c.status}`).sort()).toEqual(["a\ufffdb:awaiting_approval", "w\ufffd:succeeded"]);
  expect(await testClient().approve(id, "a\ufffdb")).toMatchObject({ status: "succeeded" });
  await stubOf(id).waitIdle();
  expect((await json("GET", `/threads/${id}`)).body.lastTurn).toMatchObject({ status: "completed" });
  const messages = await messagesOf(id);
  const asked = (messages.find((m) => m.role === "assistant") as { toolCalls?: Array<{ id: string }> }).toolCalls!.map((c) => c.id);
  expect(messages.filter((m) => m.role === "tool").map((m) => m.toolCallId).sort()).toEqual([...asked].sort());
});

it("a model's call named as a keyed direct call would be does not answer that direct call", async () => {
  const id = await createThread({ agent: "guarantees" });
  const key = `model-takes-${crypto.randomUUID()}`;
  const body = { input: { order: "DIRECT" }, sessionId: id };
  const claim = (await idempotencyClaim(new Headers({ "Idempotency-Key": key }), "POST", "/v1/tools/record_call", body))!;
  const derived = await keyedId(claim, "record_call");
  await runTurn(id, "go", [{ toolCalls: [{ id: derived, name: "record_call", arguments: { order: "MODEL" } }] }, { text: "done" }]);
  expect((await keyed("POST", "/v1/tools/record_call", key, body)).body).toMatchObject({ ok: true, callId: derived, result: '{"order":"DIRECT"}' });
  const writes = (await callsOf(id)).filter((c) => c.toolName === "record_call").map((c) => `${c.callId} ${c.result?.result}`);
  expect(writes.sort()).toEqual([`model_${derived} {"order":"MODEL"}`, `${derived} {"order":"DIRECT"}`]);
});

it("a call the provider ran itself, named as a keyed direct call would be, does not answer that direct call either", async () => {
  const key = fakeKey("provider-ids");
  const id = await createThread({ agent: "searcher", env: fakeEnv("openai:gpt-4.1-mini", key) });
  const idem = `provider-takes-${crypto.randomUUID()}`;
  const body = { input: { name: "Ada", age: 36 }, sessionId: id };
  const claim = (await idempotencyClaim(new Headers({ "Idempotency-Key": idem }), "POST", "/v1/tools/person", body))!;
  const derived = await keyedId(claim, "person");
  await scriptFake(key, [{ providerCalls: [{ id: derived, query: "weft runtime", urls: ["https://example.com/weft"] }], text: "Found it." }]);
  expect((await json("POST", `/threads/${id}/messages`, { content: "search" })).status).toBe(202);
  await stubOf(id).waitIdle();
  expect((await keyed("POST", "/v1/tools/person", idem, body)).body).toMatchObject({ ok: true, toolName: "person", callId: derived, result: '{"name":"Ada","age":36}' });
  expect((await callsOf(id)).map((c) => c.callId).sort()).toEqual([`model_${derived}`, derived].sort());
});

