/**
 * A thread's redactor holds a secret of another level (agent or prompt defaults, the Worker's vars
 * and secrets) only once the thread's code received it through `state.env`: a guess of a secret
 * no tool read comes back as written, so redaction is no oracle for it (issue 23, scope 2).
 */
import { evictDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { setWorkerValues } from "../authz/secrets-endpoints.js";
import { FAKE_BASE, fakeEnv, fakeKey, scriptFake } from "../fake-provider.js";
import { createThread, eventsOf, inThread, json, rawStub, stubOf, subscribe } from "../helpers.js";

const WORKER = "canary-worker-9b2d6e7a15";
const AGENT = "canary-agent-3f9a0c4411";
const guess = (value: string) => `guessA ${value} guessB`;

describe("secrets a thread's code never received", () => {
  it("a guess of a Worker secret no tool read comes back as written: messages, WebSocket events, streamed model output", async () => {
    const key = fakeKey("guess");
    await scriptFake(key, [{ text: `model says ${guess(WORKER)} and ${guess(AGENT)}`, chunk: 7 }]);
    const id = await createThread({ agent: "canary", env: fakeEnv("openai-compatible:x", key) });
    const sub = await subscribe(id, 0);
    expect((await json("POST", `/threads/${id}/messages`, { content: guess(WORKER) })).status).toBe(202);
    await sub.until((frames) => frames.some((f) => f.type === "turn_finished"), 20_000);
    await stubOf(id).waitIdle();
    sub.close();
    const messages = (await json("GET", `/threads/${id}/messages`)).body.messages as Array<{ role: string; content: string }>;
    expect(messages.find((m) => m.role === "user")?.content).toBe(guess(WORKER));
    expect(messages.find((m) => m.role === "assistant")?.content).toBe(`model says ${guess(WORKER)} and ${guess(AGENT)}`);
    const created = sub.frames.find((f) => f.type === "message_created" && (f.data as { message: { role: string } }).message.role === "user");
    expect(JSON.stringify(created?.data)).toContain(guess(WORKER));
    // The streamed deltas add up to a prefix of the step's text (the rest comes with model_step).
    const said = `model says ${guess(WORKER)} and ${guess(AGENT)}`;
    const streamed = sub.frames.filter((f) => f.type === "text_delta").map((f) => (f.data as { delta: string }).delta).join("");
    expect(said.startsWith(streamed)).toBe(true);
    expect(sub.frames.find((f) => f.type === "model_step")?.data).toMatchObject({ text: said });
    expect(JSON.stringify(sub.frames)).not.toContain("[redacted]");
  });

  it("once a tool read it, it is redacted; the received set is stored and survives an eviction", async () => {
    const id = await createThread();
    const names = () => inThread(id, (instance) => (instance.secrets.redactor().secrets as Array<{ name: string }>).map((s) => s.name));
    expect(await names()).not.toContain("CANARY_WORKER");
    const read = (await json("POST", "/v1/tools/read_env", { sessionId: id, input: { name: "CANARY_WORKER" } })).body;
    expect(read.result).toBe("[redacted]|secret");
    expect(await names()).toContain("CANARY_WORKER");
    await evictDurableObject(rawStub(id));
    expect(await names()).toContain("CANARY_WORKER");
    expect((await json("POST", `/threads/${id}/messages`, { content: guess(WORKER), script: [{ text: "ok" }] })).status).toBe(202);
    await stubOf(id).waitIdle();
    const messages = (await json("GET", `/threads/${id}/messages`)).body.messages as Array<{ role: string; content: string }>;
    expect(messages.find((m) => m.role === "user")?.content).toBe(guess("[redacted]"));
    // One row per name, written once.
    await json("POST", "/v1/tools/read_env", { sessionId: id, input: { name: "CANARY_WORKER" } });
    const rows = await inThread(id, (instance) => instance.ctx.storage.sql.exec("SELECT name FROM env_received").toArray());
    expect(rows).toEqual([{ name: "CANARY_WORKER" }]);
  });
});

describe("a provider key weft uses, never handed to thread code", () => {
  it("is cleaned from a provider's error that echoes it, where the turn's error is shown", async () => {
    const key = fakeKey("worker-level-key");
    const undo = setWorkerValues({ OPENAI_COMPATIBLE_API_KEY: key, OPENAI_COMPATIBLE_BASE_URL: FAKE_BASE }, { env: true, processEnv: false });
    try {
      await scriptFake(key, [{ error: { status: 401, message: `Incorrect API key provided: ${key}` } }]);
      const id = await createThread({ env: { WEFT_MODEL: { value: "openai-compatible:x", type: "text" } } });
      expect((await json("POST", `/threads/${id}/messages`, { content: "hello" })).status).toBe(202);
      await stubOf(id).waitIdle();
      const seen = JSON.stringify([(await json("GET", `/threads/${id}`)).body, await eventsOf(id), (await json("GET", `/threads/${id}/messages`)).body]);
      expect(seen).toContain("Incorrect API key provided: [redacted]");
      expect(seen).not.toContain(key);
    } finally {
      undo();
    }
  });
});
