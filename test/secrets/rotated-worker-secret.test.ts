/**
 * Rotating a Worker secret (`wrangler secret put`, then a deploy) must not show its old value in a
 * call record: a thread keeps only the names of the Worker secrets its code received, so a result
 * kept as the tool gave it would read as written once the secret held a new value. A result is
 * stored as a reader gets it, redacted when it is recorded; so are a call's `errorDetails` and a
 * schedule's target (src/kept-text.ts `keptValue`).
 */
import { evictDurableObject } from "cloudflare:test";
import { afterEach, expect, it } from "vitest";
import { setWorkerValues } from "../authz/secrets-endpoints.js";
import { createThread, eventsOf, json, rawStub } from "../helpers.js";
import { MINUTE, T0, deliverAlarm, setClock } from "../schedules/helpers.js";

const OLD = "canary-worker-9b2d6e7a15";

afterEach(() => setClock(null));

/** Gives CANARY_WORKER a new value and starts the thread again, as the deploy that brings it does; returns the undo. */
async function rotate(id: string): Promise<() => void> {
  const restore = setWorkerValues({ CANARY_WORKER: `rotated-${crypto.randomUUID().slice(0, 12)}` }, { env: true, processEnv: false });
  // The deploy that brings the new value starts the thread again: its redactor holds the new value only.
  await evictDurableObject(rawStub(id));
  return restore;
}

it("a Worker secret a tool echoed stays out of its call record after the secret is rotated", async () => {
  const id = await createThread();
  const read = await json("POST", "/v1/tools/read_env", { sessionId: id, input: { name: "CANARY_WORKER" } });
  expect(read.body.result).toBe("[redacted]|secret");
  const restore = await rotate(id);
  try {
    const calls = await json("GET", `/threads/${id}/calls`);
    expect(calls.status).toBe(200);
    expect(JSON.stringify(calls.body)).not.toContain(OLD);
    expect(calls.body.calls[0].result).toEqual({ status: "success", result: "[redacted]|secret" });
  } finally {
    restore();
  }
});

it("a Worker secret in a tool's error details stays out of its call record after the secret is rotated", async () => {
  const id = await createThread();
  const failed = await json("POST", "/v1/tools/fail_upstream", { sessionId: id, input: { name: "CANARY_WORKER" } });
  expect(JSON.stringify(failed.body)).not.toContain(OLD);
  const restore = await rotate(id);
  try {
    const calls = await json("GET", `/threads/${id}/calls`);
    expect(calls.status).toBe(200);
    expect(JSON.stringify(calls.body)).not.toContain(OLD);
    expect(calls.body.calls[0].errorCode).toBe("invalid_request");
    // The record keeps its shape: only the secret's text is replaced.
    expect(calls.body.calls[0].errorDetails).toEqual({ headers: { authorization: "Bearer [redacted]" } });
    expect(JSON.stringify(await eventsOf(id))).not.toContain(OLD);
  } finally {
    restore();
  }
});

it("a Worker secret in a schedule's input is neither listed nor handed to its tool after the secret is rotated", async () => {
  setClock(T0);
  const id = await createThread();
  // The thread's code received the secret: from here on its redactor holds it.
  expect((await json("POST", "/v1/tools/read_env", { sessionId: id, input: { name: "CANARY_WORKER" } })).body.result).toBe("[redacted]|secret");
  const made = await json("POST", `/threads/${id}/schedules`, { every: "1h", target: { tool: "echo_json_schema", input: { city: OLD } } });
  expect(made.status).toBe(201);
  const restore = await rotate(id);
  try {
    const listed = await json("GET", `/threads/${id}/schedules`);
    expect(listed.status).toBe(200);
    expect(JSON.stringify(listed.body)).not.toContain(OLD);
    expect(listed.body.schedules[0].schedule.target).toEqual({ tool: "echo_json_schema", input: { city: "[redacted]" } });
    // Its occurrence runs the tool with the input as kept: the echo holds no old value to record.
    setClock(T0 + 60 * MINUTE);
    expect(await deliverAlarm(id)).toBe(true);
    const calls = await json("GET", `/threads/${id}/calls`);
    expect(JSON.stringify(calls.body)).not.toContain(OLD);
    const fired = calls.body.calls.find((c: { toolName: string }) => c.toolName === "echo_json_schema");
    expect(fired.result).toEqual({ status: "success", result: JSON.stringify({ city: "[redacted]", days: 3 }) });
  } finally {
    restore();
  }
});
