/**
 * A direct call that waits for approval answers `202` with the `argsHash` its record and its
 * `tool_call_approval_requested` event show, so the call can be approved bound to its arguments
 * from the answer alone: through the lane and through the app, in a session and in a scratch
 * thread, over weft/client and over MCP. The hash is the thread's keyed one (it lets no one test
 * guesses of a secret argument); an answer of a call that does not wait has none.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/http/app.js";
import { createWeft } from "../../src/runtime.js";
import type { WeftEnv } from "../../src/thread/durable.js";
import { registry } from "../generated/registry.js";
import { API_KEYS, callsOf, createThread, effectRuns, eventsOf, json, request, testClient } from "../helpers.js";

const SECRET = "sk-live-9f8e7d6c5b4a3210";
const weftEnv = env as unknown as WeftEnv;
const lane = createWeft(registry).worker.fetch;
const app = createApp(registry);
const ways: Record<string, (r: Request) => Promise<Response>> = {
  "the lane": (r) => lane(r, weftEnv),
  "the app": async (r) => app.fetch(r, weftEnv),
};

/** A direct call as an HTTP client sends it (with its Content-Length, so the lane takes it). */
function requestOf(tool: string, body: unknown): Request {
  const text = JSON.stringify(body);
  const headers = { "content-type": "application/json", "content-length": String(new TextEncoder().encode(text).byteLength), authorization: `Bearer ${API_KEYS.tester}` };
  return new Request(`http://weft.test/v1/tools/${tool}`, { method: "POST", headers, body: text });
}

/** Plain SHA-256 (hex) of the canonical JSON of `{ amount, label }`: what an unkeyed hash would reveal. */
async function plainHash(amount: number, label: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`{"amount":${amount},"label":${JSON.stringify(label)}}`));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Approves the call a 202 answer names, with nothing but that answer's fields, and checks it ran once. */
async function approveFromAnswer(threadId: string, answer: { callId: string; argsHash?: string }): Promise<void> {
  const approved = await json("POST", `/threads/${threadId}/calls/${answer.callId}/approve`, { argsHash: answer.argsHash });
  expect(approved).toMatchObject({ status: 200, body: { callId: answer.callId, status: "succeeded" } });
  expect((await effectRuns(threadId, answer.callId)).runs).toBe(1);
}

describe("a direct call waiting for approval names its argsHash", () => {
  for (const [way, fetch] of Object.entries(ways)) {
    it(`in a session, through ${way}: the record's and the event's keyed hash, enough to approve`, async () => {
      const session = await createThread({ agent: "guarantees", env: { PAY_TOKEN: SECRET } });
      const res = await fetch(requestOf("needs_ok", { input: { amount: 500, label: SECRET }, sessionId: session }));
      expect(res.status).toBe(202);
      const answer = (await res.json()) as { callId: string; status: string; argsHash?: string };
      expect(answer).toMatchObject({ status: "awaiting_approval", argsHash: expect.stringMatching(/^[0-9a-f]{64}$/) });
      const record = (await callsOf(session)).find((c) => c.callId === answer.callId) as { argsHash?: string };
      expect(answer.argsHash).toBe(record.argsHash);
      const asked = (await eventsOf(session)).find((e) => e.type === "tool_call_approval_requested")!;
      expect((asked.data as { argsHash: string }).argsHash).toBe(answer.argsHash);
      expect(answer.argsHash).not.toBe(await plainHash(500, SECRET));
      await approveFromAnswer(session, answer);
    });

    it(`in a scratch thread, through ${way}: sessionId, callId and argsHash approve it`, async () => {
      const res = await fetch(requestOf("needs_ok", { input: { amount: 700 } }));
      expect(res.status).toBe(202);
      const answer = (await res.json()) as { callId: string; sessionId: string; argsHash?: string };
      expect(answer).toMatchObject({ status: "awaiting_approval", scratchWorkspace: true, sessionId: expect.stringMatching(/^[0-9a-f]{64}$/) });
      expect(answer.argsHash).toBe(((await callsOf(answer.sessionId))[0] as { argsHash?: string }).argsHash);
      expect(answer.argsHash).toMatch(/^[0-9a-f]{64}$/);
      await approveFromAnswer(answer.sessionId, answer);
    });
  }

  it("over weft/client: callTool's outcome approves with approve()", async () => {
    const client = testClient();
    const outcome = await client.callTool("needs_ok", { amount: 900 });
    expect(outcome).toMatchObject({ status: "awaiting_approval", argsHash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const approved = await client.approve(outcome.sessionId!, outcome.callId, { argsHash: outcome.argsHash! });
    expect(approved).toMatchObject({ callId: outcome.callId, status: "succeeded" });
  });

  it("over MCP: tools/call's _meta carries weft/argsHash beside weft/callId and weft/sessionId", async () => {
    const client = new Client({ name: "weft-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL("http://weft.test/mcp"), { fetch: (url, init) => request(new URL(url).pathname, init) }));
    const r = await client.callTool({ name: "needs_ok", arguments: { amount: 800 } });
    expect(r._meta).toMatchObject({ "weft/status": "awaiting_approval", "weft/argsHash": expect.stringMatching(/^[0-9a-f]{64}$/) });
    const sessionId = r._meta!["weft/sessionId"] as string;
    const callId = r._meta!["weft/callId"] as string;
    expect(r._meta!["weft/argsHash"]).toBe(((await callsOf(sessionId))[0] as { argsHash?: string }).argsHash);
    await approveFromAnswer(sessionId, { callId, argsHash: r._meta!["weft/argsHash"] as string });
    const done = await client.callTool({ name: "needs_ok", arguments: { amount: 5 } });
    expect(done._meta).not.toHaveProperty("weft/argsHash");
    await client.close();
  });

  it("a call that does not wait answers no argsHash", async () => {
    const session = await createThread({ agent: "guarantees" });
    for (const [way, fetch] of Object.entries(ways)) {
      const res = await fetch(requestOf("needs_ok", { input: { amount: 5 }, sessionId: session }));
      expect(res.status, way).toBe(200);
      expect(await res.json(), way).not.toHaveProperty("argsHash");
    }
  });
});
