/**
 * What the model chose (a tool name, a call id) reaches the collector only redacted and bounded: a
 * tool that is none of the thread's is named `(unknown)`, a call id is cut at 40 characters and
 * cleaned of the thread's secrets, as its events are (hostile review: a made-up tool name carried
 * the conversation, and an env secret, into span names).
 */
import { expect, it } from "vitest";
import { fakeEnv, fakeKey, outboundContaining, scriptFake } from "../fake-provider.js";
import { eventsStoredIn, inThread, stubOf } from "../helpers.js";
import { type DecodedSpan, turnExports } from "./collector.js";
import { freshUser, send } from "./users.js";
import { MAX_SPAN_CALL_ID_CHARS, UNKNOWN_TOOL } from "../../src/usage/tracer.js";

const SPEC = "openai-chat:gpt-4.1-mini";

async function toolSpans(label: string, call: { id: string; name: string; arguments: string }, extraEnv: Record<string, unknown> = {}): Promise<{ id: string; spans: DecodedSpan[] }> {
  const user = await freshUser(`trace-content-${label}`);
  const key = fakeKey(`trace-content-${label}`);
  await scriptFake(key, [
    { toolCalls: [call], usage: { input: 100, output: 10 } },
    { text: "done", usage: { input: 120, output: 2 } },
  ]);
  const created = await send(user.token, "POST", "/threads", { agent: "streaming", env: { ...fakeEnv(SPEC, key), ...extraEnv } });
  expect(created.status).toBe(201);
  const id = created.body.threadId as string;
  await send(user.token, "POST", `/threads/${id}/messages`, { content: `my words are ${call.name}` });
  await stubOf(id).waitIdle();
  const spans = (await turnExports(id)).flatMap((e) => e.spans).filter((s) => s.attributes["gen_ai.operation.name"] === "execute_tool");
  return { id, spans };
}

const otlpBodiesWith = async (text: string) => (await outboundContaining(text)).filter((r) => r.url.startsWith("http://otlp.test/"));

it("a tool name the model made up, and a long call id, carry no conversation text to the collector", async () => {
  const words = `private_words_${crypto.randomUUID().replaceAll("-", "_")}`;
  const { spans } = await toolSpans("made-up", { id: `call_${words}`, name: `lookup_${words}`, arguments: "{}" });
  expect(spans.map((s) => [s.name, s.attributes["gen_ai.tool.name"]])).toEqual([[`execute_tool ${UNKNOWN_TOOL}`, UNKNOWN_TOOL]]);
  const callId = spans[0]!.attributes["gen_ai.tool.call.id"] as string;
  expect(callId.length).toBe(MAX_SPAN_CALL_ID_CHARS);
  expect(callId.endsWith("…")).toBe(true);
  expect(await otlpBodiesWith(words)).toEqual([]);
});

it("a secret of the thread's env in a tool name or a call id is redacted in the span as in the event", async () => {
  const secret = `sk_live_${crypto.randomUUID().replaceAll("-", "").slice(0, 20)}`;
  const env = { MY_TOKEN: { value: secret, type: "secret" } };
  const madeUp = await toolSpans("secret-name", { id: "c1", name: `tool_${secret}`, arguments: "{}" }, env);
  expect(madeUp.spans.map((s) => s.name)).toEqual([`execute_tool ${UNKNOWN_TOOL}`]);
  // A real tool, the secret in its call id (short enough to be kept whole but for the secret).
  const real = await toolSpans("secret-id", { id: `c_${secret}`, name: "person", arguments: '{"name":"A","age":1}' }, env);
  expect(real.spans.map((s) => s.name)).toEqual(["execute_tool person"]);
  expect(real.spans[0]!.attributes["gen_ai.tool.call.id"]).not.toContain(secret);
  for (const id of [madeUp.id, real.id]) {
    const events = await inThread(id, (i) => eventsStoredIn(i.ctx.storage.sql));
    expect(events.some((e) => e.type === "tool_call_finished")).toBe(true);
    expect(JSON.stringify(events)).not.toContain(secret);
  }
  expect(await otlpBodiesWith(secret)).toEqual([]);
});
