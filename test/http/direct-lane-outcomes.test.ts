/**
 * A session's direct call through the lane comes back from its thread as text (the outcome's JSON,
 * marked whether the call waits for a person), where the app gets the outcome as an object: for
 * every kind of outcome (waiting for approval, refused, a result, an error result after retries,
 * an output that fails its schema, a capped result given in full, a scratch thread kept because
 * its call waits) both give the same status, headers and body, the argsHash of a call awaiting
 * approval among its fields (each call's own id, duration and hash aside).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/http/app.js";
import { createWeft } from "../../src/runtime.js";
import type { WeftEnv } from "../../src/thread/durable.js";
import { registry } from "../generated/registry.js";
import { API_KEYS, createThread } from "../helpers.js";

const lane = createWeft(registry).worker.fetch;
const app = createApp(registry);
const weftEnv = env as unknown as WeftEnv;

/** A direct call as an HTTP client sends it (with its Content-Length, so the lane takes it). */
function requestOf(tool: string, body: unknown): Request {
  const text = JSON.stringify(body);
  const headers = { "content-type": "application/json", "content-length": String(new TextEncoder().encode(text).byteLength), authorization: `Bearer ${API_KEYS.tester}` };
  return new Request(`http://weft.test/v1/tools/${tool}`, { method: "POST", headers, body: text });
}

/**
 * Status, headers and body; ids weft made (calls, a scratch thread), durations and argsHash (keyed
 * per thread: two scratch threads hash the same input apart) replaced by placeholders.
 */
async function seen(res: Response) {
  const text = (await res.text())
    .replace(/tool_[a-z_]+_[0-9a-z]{21}/g, "<callId>")
    .replace(/"sessionId":"[0-9a-f]{64}"/, '"sessionId":"<thread>"')
    .replace(/"argsHash":"[0-9a-f]{64}"/, '"argsHash":"<hash>"');
  const body = JSON.parse(text, (key, value) => (key === "durationMs" ? "<ms>" : value)) as unknown;
  return { status: res.status, headers: [...res.headers].filter(([name]) => name !== "content-length"), body };
}

describe("a session's direct call through the lane", () => {
  it("answers every kind of outcome as the app does", async () => {
    const session = await createThread({ agent: "guarantees" });
    const cases: Record<string, [string, unknown, number]> = {
      "waiting for approval": ["needs_ok", { input: { amount: 500 }, sessionId: session }, 202],
      "refused input": ["needs_ok", { input: { amount: -1 }, sessionId: session }, 400],
      "a result": ["effect_write", { input: { label: "x" }, sessionId: session }, 200],
      "an error result after retries": ["flaky", { input: { failures: 5 }, sessionId: session }, 200],
      "an output that fails its schema": ["typed_output", { input: { broken: true }, sessionId: session }, 200],
      "a capped result, answered in full": ["big_result", { input: { bytes: 200_000 }, sessionId: session }, 200],
      "a scratch thread kept while its call waits": ["needs_ok", { input: { amount: 500 } }, 202],
    };
    for (const [name, [tool, body, status]] of Object.entries(cases)) {
      const viaLane = await seen(await lane(requestOf(tool, body), weftEnv));
      const viaApp = await seen(await app.fetch(requestOf(tool, body), weftEnv));
      expect(viaLane, name).toEqual(viaApp);
      expect(viaLane.status, name).toBe(status);
      // Awaiting approval, both answers name the hash an approval is bound to; no other outcome has one.
      expect((viaLane.body as { argsHash?: string }).argsHash, name).toBe(tool === "needs_ok" && status === 202 ? "<hash>" : undefined);
    }
  });
});
