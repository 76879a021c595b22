/**
 * A secret the model writes with JSON escapes in a streamed tool call's arguments is redacted in the
 * deltas a client parses (review 21a: the stream was redacted as written, so `\u0073k-live...`
 * passed, while the call's stored arguments were redacted in their decoded strings).
 */
import { expect, it } from "vitest";
import type { EventFrame } from "../../src/protocol.js";
import { fakeEnv, fakeKey, scriptFake } from "../fake-provider.js";
import { createThread, eventsOf, json, stubOf } from "../helpers.js";

const SECRET = "sk-live-0123456789abcdef";

it("the streamed arguments, joined and parsed, and their previews hold no secret written with escapes", async () => {
  const key = fakeKey("stream-escapes");
  const escaped = SECRET.replace(/[a-f]/g, (ch) => `\\u00${ch.charCodeAt(0).toString(16)}`).replace("-", "\\u002d");
  const args = `{"query":"${escaped} \\/ ${escaped}","limit":1}`;
  await scriptFake(key, [{ toolCalls: [{ id: "c1", name: "search_docs", arguments: args }], chunk: 4, delayMs: 60 }, { text: "ok" }]);
  const id = await createThread({ agent: "streaming", env: { ...fakeEnv("openai-compatible:x", key), API_TOKEN: { value: SECRET, type: "secret" } } });
  expect((await json("POST", `/threads/${id}/messages`, { content: "go" })).status).toBe(202);
  await stubOf(id).waitIdle();
  const deltas = (await eventsOf(id)).filter((f: EventFrame) => f.type === "tool_call_delta") as Array<EventFrame & { data: { delta: string; preview?: unknown } }>;
  // At least one: a loaded machine may read the whole stream in one window (test/run/streaming.test.ts, PACE_MS).
  expect(deltas.length).toBeGreaterThan(0);
  const joined = deltas.map((d) => d.data.delta).join("");
  // What a client reads: the text parsed (with what the step's end adds, held back at most), and every preview.
  const decoded = joined.replace(/\\u([0-9a-f]{4})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  expect(decoded).not.toContain(SECRET);
  expect(joined).toContain("[redacted]");
  for (const d of deltas) expect(JSON.stringify(d.data.preview ?? null)).not.toContain(SECRET);
});
