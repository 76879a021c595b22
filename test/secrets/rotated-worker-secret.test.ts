/**
 * Rotating a Worker secret (`wrangler secret put`, then a deploy) must not show its old value in a
 * call record: a thread keeps only the names of the Worker secrets its code received, so a result
 * kept as the tool gave it would read as written once the secret held a new value. A result is
 * stored as a reader gets it, redacted when it is recorded.
 */
import { evictDurableObject } from "cloudflare:test";
import { expect, it } from "vitest";
import { setWorkerValues } from "../authz/secrets-endpoints.js";
import { createThread, json, rawStub } from "../helpers.js";

const OLD = "canary-worker-9b2d6e7a15";

it("a Worker secret a tool echoed stays out of its call record after the secret is rotated", async () => {
  const id = await createThread();
  const read = await json("POST", "/v1/tools/read_env", { sessionId: id, input: { name: "CANARY_WORKER" } });
  expect(read.body.result).toBe("[redacted]|secret");
  const restore = setWorkerValues({ CANARY_WORKER: `rotated-${crypto.randomUUID().slice(0, 12)}` }, { env: true, processEnv: false });
  try {
    // The deploy that brings the new value starts the thread again: its redactor holds the new value only.
    await evictDurableObject(rawStub(id));
    const calls = await json("GET", `/threads/${id}/calls`);
    expect(calls.status).toBe(200);
    expect(JSON.stringify(calls.body)).not.toContain(OLD);
    expect(calls.body.calls[0].result).toEqual({ status: "success", result: "[redacted]|secret" });
  } finally {
    restore();
  }
});
