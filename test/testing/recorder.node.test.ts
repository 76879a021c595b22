/**
 * The recorder behind `recorded(...)` threads of weft/testing (scripts/lib/recorder.mjs): it
 * records a provider's requests and streamed answers with every secret stripped, replays them
 * offline, and answers a request that differs from the recording with a diff naming the paths.
 * The "real provider" here is weft's fake one, speaking the OpenAI Responses wire format.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createFakeProvider } from "../../scripts/lib/fake-provider.mjs";
import { createRecorder, jsonDiff } from "../../scripts/lib/recorder.mjs";

const root = mkdtempSync(join(tmpdir(), "weft-recorder-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const KEY = "sk-real-provider-key-7f3a9c";
const SECRET = "thread-secret-b81e44d2";
const fake = createFakeProvider();
const upstream = (url: string | URL | Request, init?: RequestInit) => fake.handle(new Request(url, init));

/** A Responses API request body as weft sends it, carrying a secret a tool result leaked. */
const body = (question: string) => ({
  model: "gpt-4.1-mini",
  stream: true,
  input: [{ role: "user", content: question }, { role: "user", content: `my token is ${SECRET}` }],
});

async function session(recorder: ReturnType<typeof createRecorder>, file: string): Promise<string> {
  const res = await recorder.handle(new Request("http://weft-recorder.test/sessions", { method: "POST", body: JSON.stringify({ file, provider: "openai", secrets: [SECRET] }) }));
  expect(res.status, await res.clone().text()).toBe(200);
  return ((await res.json()) as { session: string }).session;
}

const send = (recorder: ReturnType<typeof createRecorder>, id: string, payload: unknown) =>
  recorder.handle(
    new Request(`http://weft-recorder.test/s/${id}/responses`, {
      method: "POST",
      headers: { authorization: "Bearer weft-recorder-placeholder", "content-type": "application/json" },
      body: JSON.stringify(payload),
    }),
  );

describe("the recorder", () => {
  const file = "agents/tests/recordings/demo.json";

  it("records with the real key from its env, and writes no key, header or secret value", async () => {
    fake.script(KEY, [{ text: `Hello, your token is ${SECRET}.` }]);
    const recorder = createRecorder({ root, env: { WEFT_RECORD: "1", OPENAI_API_KEY: KEY, OPENAI_BASE_URL: "http://fake.test/v1" }, fetch: upstream as typeof fetch });
    const res = await send(recorder, await session(recorder, file), body("hi"));
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("Hello, your token is");
    // The provider got the real key, which the Worker never held.
    expect(fake.requests.filter((r: { key: string }) => r.key === KEY)).toHaveLength(1);
    const written = readFileSync(join(root, file), "utf8");
    expect(written).not.toContain(KEY);
    expect(written).not.toContain(SECRET);
    expect(written).not.toMatch(/authorization|Bearer/i);
    const recording = JSON.parse(written);
    expect(recording.exchanges).toHaveLength(1);
    expect(recording.exchanges[0].request).toMatchObject({ method: "POST", path: "/responses", body: { input: [{ content: "hi" }, { content: "my token is [secret]" }] } });
    expect(recording.exchanges[0].response.body).toContain("Hello, your token is [secret].");
  });

  it("replays offline what it recorded", async () => {
    const recorder = createRecorder({ root, env: {}, fetch: (() => Promise.reject(new Error("offline"))) as typeof fetch });
    const id = await session(recorder, file);
    const res = await send(recorder, id, body("hi"));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/text\/event-stream/);
    expect(await res.text()).toContain("Hello, your token is [secret].");
    const report = (await (await recorder.handle(new Request(`http://weft-recorder.test/sessions/${id}`))).json()) as { errors: string[] };
    expect(report.errors).toEqual([]);
  });

  it("answers a request that differs from the recording with 400 and a diff naming the path", async () => {
    const recorder = createRecorder({ root, env: {} });
    const id = await session(recorder, file);
    const res = await send(recorder, id, body("hello"));
    expect(res.status).toBe(400);
    const { errors } = (await (await recorder.handle(new Request(`http://weft-recorder.test/sessions/${id}`))).json()) as { errors: string[] };
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain("agents/tests/recordings/demo.json: request 1 differs from the recording");
    expect(errors[0]).toContain('at $.body.input[0].content: recorded "hi", sent "hello"');
    // A request past the end of the recording is named as such.
    const extra = await send(recorder, id, body("hi"));
    expect(extra.status).toBe(400);
  });

  it("refuses a missing recording with how to make it, and recording without a key", async () => {
    const replay = createRecorder({ root, env: {} });
    const res = await replay.handle(new Request("http://weft-recorder.test/sessions", { method: "POST", body: JSON.stringify({ file: "agents/tests/recordings/none.json", provider: "openai" }) }));
    expect(res.status).toBe(500);
    expect(await res.text()).toContain("no recording at agents/tests/recordings/none.json: run the test once with WEFT_RECORD=1 and OPENAI_API_KEY set");
    const record = createRecorder({ root, env: { WEFT_RECORD: "1" } });
    const keyless = await record.handle(new Request("http://weft-recorder.test/sessions", { method: "POST", body: JSON.stringify({ file: "x.json", provider: "openai" }) }));
    expect(await keyless.text()).toContain("WEFT_RECORD=1 needs OPENAI_API_KEY");
  });

  it("records Anthropic with the real key in x-api-key, and writes neither key", async () => {
    const anthropicKey = "sk-ant-real-key-41c9e0";
    fake.script(anthropicKey, [{ text: "Hi from Claude." }]);
    const recorder = createRecorder({ root, env: { WEFT_RECORD: "1", ANTHROPIC_API_KEY: anthropicKey, ANTHROPIC_BASE_URL: "http://fake.test/v1" }, fetch: upstream as typeof fetch });
    const opened = await recorder.handle(new Request("http://weft-recorder.test/sessions", { method: "POST", body: JSON.stringify({ file: "claude.json", provider: "anthropic", secrets: [] }) }));
    const { session: id } = (await opened.json()) as { session: string };
    const res = await recorder.handle(
      new Request(`http://weft-recorder.test/s/${id}/messages`, {
        method: "POST",
        headers: { "x-api-key": "weft-recorder-placeholder", "anthropic-version": "2023-06-01", "content-type": "application/json" },
        body: JSON.stringify({ model: "claude-haiku-4-5", max_tokens: 100, stream: true, messages: [{ role: "user", content: "hi" }] }),
      }),
    );
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await res.text()).toContain("Hi from Claude.");
    const written = readFileSync(join(root, "claude.json"), "utf8");
    expect(written).not.toContain(anthropicKey);
    expect(written).not.toContain("weft-recorder-placeholder");
    expect(JSON.parse(written).exchanges[0].request.path).toBe("/messages");
  });

  it("writes no secret a provider streams back in pieces, and none JSON escapes", async () => {
    // A real provider streams a few characters a delta: the secret is in no one event whole.
    const quoted = 'pa"ss\\word-5e1c';
    fake.script(KEY, [{ text: `Your token is ${SECRET} and ${quoted}.`, chunk: 3 }]);
    const recorder = createRecorder({ root, env: { WEFT_RECORD: "1", OPENAI_API_KEY: KEY, OPENAI_BASE_URL: "http://fake.test/v1" }, fetch: upstream as typeof fetch });
    const opened = await recorder.handle(new Request("http://weft-recorder.test/sessions", { method: "POST", body: JSON.stringify({ file: "pieces.json", provider: "openai", secrets: [SECRET, quoted] }) }));
    const { session: id } = (await opened.json()) as { session: string };
    const res = await send(recorder, id, { ...body("hi"), input: [{ role: "user", content: `mine: ${quoted}` }] });
    // What the Worker gets now is the provider's answer as it came.
    expect(await res.text()).toContain('"delta"');
    const recording = JSON.parse(readFileSync(join(root, "pieces.json"), "utf8"));
    const { request, response } = recording.exchanges[0];
    expect(JSON.stringify(request.body)).not.toContain("pa\\\"ss");
    expect(request.body.input[0].content).toBe("mine: [secret]");
    // The text a reader puts together from the recorded deltas.
    const deltas = response.body
      .split("\n")
      .filter((line: string) => line.startsWith("data: {"))
      .map((line: string) => JSON.parse(line.slice(6)))
      .filter((e: { type: string }) => e.type === "response.output_text.delta")
      .map((e: { delta: string }) => e.delta)
      .join("");
    expect(deltas).toBe("Your token is [secret] and [secret].");
    expect(response.body).not.toContain(SECRET);
    expect(response.body).not.toContain("pa\\\"ss");
    // And it replays as recorded.
    const replay = createRecorder({ root, env: {} });
    const again = await replay.handle(new Request("http://weft-recorder.test/sessions", { method: "POST", body: JSON.stringify({ file: "pieces.json", provider: "openai", secrets: [SECRET, quoted] }) }));
    const replayed = await send(replay, ((await again.json()) as { session: string }).session, { ...body("hi"), input: [{ role: "user", content: `mine: ${quoted}` }] });
    expect(replayed.status).toBe(200);
  });

  it("diffs JSON by path", () => {
    expect(jsonDiff({ a: [1, 2], b: "x" }, { a: [1, 3], c: true })).toEqual(["at $.a[1]: recorded 2, sent 3", 'at $.b: recorded "x", sent (absent)', "at $.c: recorded (absent), sent true"]);
  });
});
