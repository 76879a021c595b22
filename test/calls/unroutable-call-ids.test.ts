/**
 * A call id the model sends is kept unless no route could reach it: "", "." and ".." are no URL
 * path segment of their own (URLs remove dot segments, in any spelling: `%2E%2E` too), so a call
 * named so that waits for approval could never be approved or denied, from weft/client, the
 * playground or plain HTTP, and its turn waited until stopped. Found by a hostile review.
 */
import { exports } from "cloudflare:workers";
import { expect, it } from "vitest";
import { WeftClient } from "../../src/client/index.js";
import { API_KEYS, callsOf, createThread, json, stubOf } from "../helpers.js";

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

  const weft = new WeftClient({
    url: "http://weft.test",
    token: API_KEYS.tester,
    fetch: ((input: RequestInfo | URL, init?: RequestInit) => (exports as unknown as { default: Fetcher }).default.fetch(new Request(input, init))) as typeof fetch,
  });
  expect(await weft.approve(id, "model_..")).toMatchObject({ callId: "model_..", status: "succeeded" });
  expect(await weft.deny(id, "model_.")).toMatchObject({ callId: "model_.", status: "denied" });
  await stubOf(id).waitIdle();
  expect((await json("GET", `/threads/${id}`)).body.lastTurn.status).toBe("completed");
});
