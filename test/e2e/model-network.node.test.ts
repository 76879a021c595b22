/**
 * Model requests over a real network, against `wrangler dev` and a fake provider served over
 * Node HTTP: a connection the provider closes, one it resets after partial output, a port that
 * refuses. (A restart of the whole server while a model step streams is in restart.node.test.ts, on
 * the server that file restarts.)
 */
import { createServer } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createFakeProvider, serveFakeProvider } from "../../scripts/lib/fake-provider.mjs";
import { call, createThread, sharedWeft, waitIdle, type DevServer } from "./support.js";

const fake = createFakeProvider();
let provider: { url: string; close(): Promise<void> };
let weft: DevServer | undefined;

beforeAll(async () => {
  [provider, weft] = await Promise.all([serveFakeProvider(fake), sharedWeft("dev")]);
});

afterAll(async () => {
  await weft?.stop();
  await provider?.close();
});

/** A thread whose model is an OpenAI-compatible endpoint at `baseUrl`, with its own key. */
async function threadAt(baseUrl: string, key: string): Promise<string> {
  return createThread(weft!.url, {
    agent: "stepper",
    env: {
      WEFT_MODEL: { value: "openai-compatible:x", type: "text" },
      OPENAI_COMPATIBLE_API_KEY: { value: key, type: "secret" },
      OPENAI_COMPATIBLE_BASE_URL: { value: baseUrl, type: "text" },
    },
  });
}

const requestsOf = (key: string) => fake.requests.filter((r) => r.key === key);

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

it("a connection the provider closes without answering is a network failure, retried", async () => {
  const key = "closes-twice";
  fake.script(key, [{ network: "close" }, { network: "close" }, { text: "reached you" }]);
  const id = await threadAt(`${provider.url}/v1`, key);
  await call(weft!.url, "POST", `/threads/${id}/messages`, { content: "hello?" });
  const info = await waitIdle(weft!.url, id, 30_000);
  expect(info.lastTurn).toMatchObject({ status: "completed" });
  expect(info.lastTurn.modelSteps[0]).toMatchObject({ attempts: 3 });
  expect(requestsOf(key)).toHaveLength(3);
  const messages = (await call(weft!.url, "GET", `/threads/${id}/messages`)).body.messages;
  expect(messages.map((m: any) => m.content)).toEqual(["hello?", "reached you"]);
});

it("a connection reset after partial output is a cut stream: retried, and never read as 'provider answered 200'", async () => {
  const key = "resets-mid-stream";
  const reset = { text: "partial output that never ends", chunk: 5, delayMs: 20, resetAfterEvents: 4 };
  fake.script(key, [reset, { text: "whole answer" }, reset, reset, reset]);
  const id = await threadAt(`${provider.url}/v1`, key);
  await call(weft!.url, "POST", `/threads/${id}/messages`, { content: "first" });
  const info = await waitIdle(weft!.url, id, 30_000);
  expect(info.lastTurn).toMatchObject({ status: "completed" });
  expect(info.lastTurn.modelSteps[0]).toMatchObject({ attempts: 2 });
  expect(info.lastTurn.modelSteps[0].retries[0]).toMatch(/stream was cut/);
  // Reset on every attempt: the turn fails with stream_cut, nothing of the cut streams stored.
  await call(weft!.url, "POST", `/threads/${id}/messages`, { content: "second" });
  const failed = await waitIdle(weft!.url, id, 30_000);
  expect(failed.lastTurn).toMatchObject({ status: "failed", errorCode: "stream_cut" });
  expect(failed.lastTurn.error).not.toMatch(/answered 200/);
  const messages = (await call(weft!.url, "GET", `/threads/${id}/messages`)).body.messages;
  expect(messages.map((m: any) => m.content)).toEqual(["first", "whole answer", "second"]);
});

it("a provider port that refuses connections ends the turn failed after the bounded retries, with a valid history", async () => {
  const id = await threadAt(`http://127.0.0.1:${await closedPort()}/v1`, "refused");
  await call(weft!.url, "POST", `/threads/${id}/messages`, { content: "anyone?" });
  const info = await waitIdle(weft!.url, id, 30_000);
  expect(info.lastTurn.status).toBe("failed");
  expect(info.lastTurn.error).toMatch(/model openai-compatible:x failed after 3 attempts/);
  const messages = (await call(weft!.url, "GET", `/threads/${id}/messages`)).body.messages;
  expect(messages.map((m: any) => m.role)).toEqual(["user"]);
});
