/**
 * Traces: a turn over the fake provider sent to the collector named by `WEFT_OTLP_URL` (the fake's
 * catch-all records it) as OTLP/HTTP JSON: one trace, its `invoke_agent` span the parent of a
 * `chat` span per model request (model, token counts, finish reasons) and an `execute_tool` span
 * per call (tool name, call id, status, attempts), with the thread and user ids and no content.
 */
import { expect, it } from "vitest";
import { fakeEnv, fakeKey, outboundContaining, scriptFake } from "../fake-provider.js";
import { request, stubOf } from "../helpers.js";
import { MAX_BUFFERED_SPANS, OtlpExporter } from "../../src/usage/otlp.js";
import { freshUser, send } from "./users.js";

type OtlpSpan = { traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number; startTimeUnixNano: string; endTimeUnixNano: string; attributes: Array<{ key: string; value: Record<string, unknown> }>; status: { code: number } };

const attr = (s: OtlpSpan, key: string) => {
  const v = s.attributes.find((a) => a.key === key)?.value;
  if (!v) return undefined;
  if ("intValue" in v) return Number(v.intValue);
  if ("arrayValue" in v) return (v.arrayValue as { values: Array<{ stringValue: string }> }).values.map((x) => x.stringValue);
  return Object.values(v)[0];
};

it("a turn is one trace: invoke_agent over a chat span per request and an execute_tool span per call, with counts and no content", async () => {
  const user = await freshUser("trace");
  const key = fakeKey("trace");
  const secretish = `private-words-${crypto.randomUUID()}`;
  await scriptFake(key, [
    { toolCalls: [{ id: "t1", name: "person", arguments: `{"name":"${secretish}","age":1}` }], usage: { input: 120, output: 11 } },
    { toolCalls: [{ id: "t2", name: "person", arguments: '{"name":"B","age":2}' }], usage: { input: 150, output: 12 } },
    { text: `answer ${secretish}`, usage: { input: 170, output: 4 } },
  ]);
  const created = await send(user.token, "POST", "/threads", { agent: "streaming", env: fakeEnv("openai-chat:gpt-4.1-mini", key) });
  const id = created.body.threadId as string;
  await send(user.token, "POST", `/threads/${id}/messages`, { content: `hello ${secretish}` });
  await stubOf(id).waitIdle();
  // Sent without awaiting: wait for it to arrive.
  let posts: Awaited<ReturnType<typeof outboundContaining>> = [];
  for (let i = 0; i < 500; i++) {
    posts = (await outboundContaining(id)).filter((r) => r.url === "http://otlp.test/v1/traces");
    if (posts.some((p) => p.body.includes("invoke_agent"))) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  expect(posts.length).toBeGreaterThan(0);
  expect(posts.every((p) => p.method === "POST" && p.headers["content-type"] === "application/json")).toBe(true);
  // No message, argument or answer text reaches the collector.
  expect(posts.some((p) => p.body.includes(secretish))).toBe(false);
  const spans: OtlpSpan[] = posts.flatMap((p) => JSON.parse(p.body).resourceSpans.flatMap((r: any) => r.scopeSpans.flatMap((s: any) => s.spans)));
  const turn = spans.filter((s) => s.name === "invoke_agent streaming");
  expect(turn).toHaveLength(1);
  const root = turn[0]!;
  expect(root.parentSpanId).toBeUndefined();
  expect([attr(root, "gen_ai.operation.name"), attr(root, "gen_ai.agent.name"), attr(root, "weft.thread.id"), attr(root, "enduser.id"), attr(root, "weft.turn.status")]).toEqual(["invoke_agent", "streaming", id, user.userId, "completed"]);
  const chats = spans.filter((s) => attr(s, "gen_ai.operation.name") === "chat");
  expect(chats.map((s) => [s.name, attr(s, "gen_ai.request.model"), attr(s, "gen_ai.usage.input_tokens"), attr(s, "gen_ai.usage.output_tokens"), attr(s, "gen_ai.response.finish_reasons")])).toEqual([
    ["chat gpt-4.1-mini", "gpt-4.1-mini", 120, 11, ["tool-calls"]],
    ["chat gpt-4.1-mini", "gpt-4.1-mini", 150, 12, ["tool-calls"]],
    ["chat gpt-4.1-mini", "gpt-4.1-mini", 170, 4, ["stop"]],
  ]);
  const tools = spans.filter((s) => attr(s, "gen_ai.operation.name") === "execute_tool");
  expect(tools.map((s) => [s.name, attr(s, "gen_ai.tool.name"), attr(s, "gen_ai.tool.call.id"), attr(s, "weft.tool.effect"), attr(s, "weft.tool.status"), attr(s, "weft.tool.attempts")])).toEqual([
    ["execute_tool person", "person", "t1", "read", "succeeded", 1],
    ["execute_tool person", "person", "t2", "read", "succeeded", 1],
  ]);
  for (const s of [...chats, ...tools]) {
    expect(s.traceId).toBe(root.traceId);
    expect(s.parentSpanId).toBe(root.spanId);
    expect(BigInt(s.startTimeUnixNano) >= BigInt(root.startTimeUnixNano)).toBe(true);
    expect(BigInt(s.endTimeUnixNano) <= BigInt(root.endTimeUnixNano)).toBe(true);
  }
  expect(root.traceId).toMatch(/^[0-9a-f]{32}$/);
  expect(root.spanId).toMatch(/^[0-9a-f]{16}$/);
});

it("the exporter's buffer is bounded: past it spans are dropped and counted, and the count is sent", async () => {
  const sent: string[] = [];
  const exporter = new OtlpExporter("http://collector.test/v1/traces", async (_url, body) => void sent.push(body));
  const span = { traceId: "a".repeat(32), spanId: "b".repeat(16), name: "s", kind: 1 as const, startMs: 1, endMs: 2, attributes: {}, status: 0 as const };
  for (let i = 0; i < MAX_BUFFERED_SPANS + 5; i++) exporter.add(span);
  expect(exporter.dropped).toBe(5);
  await exporter.flush();
  const body = JSON.parse(sent[0]!);
  expect(body.resourceSpans[0].scopeSpans[0].spans).toHaveLength(MAX_BUFFERED_SPANS);
  expect(body.resourceSpans[0].resource.attributes).toContainEqual({ key: "weft.spans_dropped", value: { intValue: "5" } });
  // A collector that fails costs nothing but a log line; the next batch starts empty.
  const failing = new OtlpExporter("http://collector.test/v1/traces", async () => {
    throw new Error("collector down");
  });
  failing.add(span);
  await expect(failing.flush()).resolves.toBeUndefined();
  expect(exporter.dropped).toBe(0);
});

/** The spans the collector got for thread `id`, once its turn's `invoke_agent` span arrived. */
async function spansOf(id: string): Promise<OtlpSpan[]> {
  for (let i = 0; i < 500; i++) {
    const posts = (await outboundContaining(id)).filter((r) => r.url === "http://otlp.test/v1/traces");
    if (posts.some((p) => p.body.includes("invoke_agent"))) return posts.flatMap((p) => JSON.parse(p.body).resourceSpans.flatMap((r: any) => r.scopeSpans.flatMap((s: any) => s.spans)));
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no trace of thread ${id} arrived`);
}

it("a W3C traceparent on the request that posts the message becomes the parent of the turn's trace; a malformed one is ignored", async () => {
  const user = await freshUser("trace");
  const post = async (traceparent: string) => {
    const key = fakeKey("tp");
    await scriptFake(key, [{ text: "hi" }]);
    const id = (await send(user.token, "POST", "/threads", { agent: "streaming", env: fakeEnv("openai-chat:gpt-4.1-mini", key) })).body.threadId as string;
    const res = await request(`/threads/${id}/messages`, { method: "POST", headers: { authorization: `Bearer ${user.token}`, "content-type": "application/json", traceparent }, body: JSON.stringify({ content: "go" }) }, null);
    expect(res.status).toBe(202);
    await stubOf(id).waitIdle();
    return spansOf(id);
  };
  const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
  const parent = "00f067aa0ba902b7";
  const spans = await post(`00-${traceId}-${parent}-01`);
  const root = spans.find((s) => s.name === "invoke_agent streaming")!;
  expect([root.traceId, root.parentSpanId]).toEqual([traceId, parent]);
  expect(spans.filter((s) => s.name.startsWith("chat ")).every((s) => s.traceId === traceId && s.parentSpanId === root.spanId)).toBe(true);
  const ignored = (await post(`00-${"0".repeat(32)}-${parent}-01`)).find((s) => s.name === "invoke_agent streaming")!;
  expect(ignored.traceId).not.toBe("0".repeat(32));
  expect(ignored.parentSpanId).toBeUndefined();
});
