/**
 * Traces: a turn over the fake provider sent to the collector named by `WEFT_OTLP_URL`, a local
 * OTLP receiver that decodes each export with the OpenTelemetry protocol's definitions
 * (scripts/lib/fake-otlp.mjs): OTLP/HTTP protobuf by default, one trace per turn, its
 * `invoke_agent` span the parent of a `chat` span per model request (model, the token counts the
 * provider reported, finish reasons) and an `execute_tool` span per call (tool name, call id,
 * effect, status, attempts), a `run_code` span per `state.runCode` run under its call's span, with
 * the thread and user ids and no content.
 */
import { expect, it } from "vitest";
import { fakeEnv, fakeKey, outboundContaining, scriptFake } from "../fake-provider.js";
import { createThread, request, runTurn, stubOf, until } from "../helpers.js";
import { MAX_BUFFERED_SPANS, MAX_EXPORT_BATCH, OtlpExporter } from "../../src/usage/otlp.js";
import { threadTracerOf } from "../../src/usage/tracer.js";
import { Double, type Span } from "../../src/usage/span.js";
import { type DecodedSpan, exportsOf, turnExports, undecodable } from "./collector.js";
import { freshUser, send } from "./users.js";

const spansIn = (exports: Array<{ spans: DecodedSpan[] }>) => exports.flatMap((e) => e.spans);

it("a turn is one trace, sent as protobuf: invoke_agent over a chat span per request (the provider's token counts) and an execute_tool span per call, with no content", async () => {
  const user = await freshUser("trace");
  const key = fakeKey("trace");
  const secretish = `private-words-${crypto.randomUUID()}`;
  const reported = [
    { input: 120, output: 11, cached: 64, reasoning: 5, cacheWrite: 0 },
    { input: 150, output: 12, cached: 0, reasoning: 0, cacheWrite: 0 },
    { input: 170, output: 40, cached: 128, reasoning: 0, cacheWrite: 0 },
  ];
  await scriptFake(key, [
    { toolCalls: [{ id: "t1", name: "person", arguments: `{"name":"${secretish}","age":1}` }], usage: reported[0]! },
    { toolCalls: [{ id: "t2", name: "person", arguments: '{"name":"B","age":2}' }], usage: reported[1]! },
    { text: `answer ${secretish}`, usage: reported[2]! },
  ]);
  const created = await send(user.token, "POST", "/threads", { agent: "streaming", env: fakeEnv("openai-chat:gpt-4.1-mini", key) });
  const id = created.body.threadId as string;
  await send(user.token, "POST", `/threads/${id}/messages`, { content: `hello ${secretish}` });
  await stubOf(id).waitIdle();
  const exports = await turnExports(id);
  expect(exports.every((e) => e.contentType === "application/x-protobuf" && e.error === undefined)).toBe(true);
  expect(exports[0]!.resource["service.name"]).toBe("weft");
  expect(await undecodable()).toEqual([]);
  // No message, argument or answer text reaches the collector (its bodies as sent, read as text).
  expect((await outboundContaining(secretish)).filter((r) => r.url.startsWith("http://otlp.test/"))).toEqual([]);
  expect((await outboundContaining(id)).some((r) => r.url === "http://otlp.test/v1/traces")).toBe(true);

  const spans = spansIn(exports);
  const turn = spans.filter((s) => s.name === "invoke_agent streaming");
  expect(turn).toHaveLength(1);
  const root = turn[0]!;
  expect(root.parentSpanId).toBe("");
  expect(root.traceId).toMatch(/^[0-9a-f]{32}$/);
  expect(root.spanId).toMatch(/^[0-9a-f]{16}$/);
  expect(root.kind).toBe(1);
  expect(root.attributes).toMatchObject({ "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "streaming", "gen_ai.conversation.id": id, "weft.thread.id": id, "enduser.id": user.userId, "weft.turn.status": "completed" });

  // Each chat span carries what the provider reported for its request, as the ledger does.
  const chats = spans.filter((s) => s.attributes["gen_ai.operation.name"] === "chat");
  expect(chats.map((s) => [s.name, s.kind, s.attributes["gen_ai.provider.name"], s.attributes["gen_ai.request.model"], s.attributes["gen_ai.response.finish_reasons"]])).toEqual([
    ["chat gpt-4.1-mini", 3, "openai", "gpt-4.1-mini", ["tool-calls"]],
    ["chat gpt-4.1-mini", 3, "openai", "gpt-4.1-mini", ["tool-calls"]],
    ["chat gpt-4.1-mini", 3, "openai", "gpt-4.1-mini", ["stop"]],
  ]);
  const counted = (s: DecodedSpan) => ({
    input: s.attributes["gen_ai.usage.input_tokens"],
    output: s.attributes["gen_ai.usage.output_tokens"],
    cached: s.attributes["gen_ai.usage.cache_read.input_tokens"] ?? 0,
    reasoning: s.attributes["weft.usage.reasoning_tokens"] ?? 0,
    cacheWrite: s.attributes["gen_ai.usage.cache_creation.input_tokens"] ?? 0,
  });
  expect(chats.map(counted)).toEqual(reported);
  const usage = (await send(user.token, "GET", `/threads/${id}/usage`)).body;
  expect(chats.map((s) => s.attributes["weft.usage.cost_usd"])).toEqual(usage.requests.map((r: { costMicroUsd: number }) => r.costMicroUsd / 1e6));
  expect(chats.map((s) => s.attributes["weft.step"])).toEqual([1, 2, 3]);

  const tools = spans.filter((s) => s.attributes["gen_ai.operation.name"] === "execute_tool");
  expect(tools.map((s) => [s.name, s.kind, s.status.code, s.attributes["gen_ai.tool.name"], s.attributes["gen_ai.tool.call.id"], s.attributes["weft.tool.effect"], s.attributes["weft.tool.status"], s.attributes["weft.tool.attempts"]])).toEqual([
    ["execute_tool person", 1, 1, "person", "t1", "read", "succeeded", 1],
    ["execute_tool person", 1, 1, "person", "t2", "read", "succeeded", 1],
  ]);
  // One trace: every span under the turn's, and inside its time, and each names the turn.
  expect(root.attributes["weft.turn.id"]).toMatch(/^turn_/);
  for (const s of [...chats, ...tools]) {
    expect(s.attributes["weft.turn.id"]).toBe(root.attributes["weft.turn.id"]);
    expect(s.traceId).toBe(root.traceId);
    expect(s.parentSpanId).toBe(root.spanId);
    expect(s.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(BigInt(s.startTimeUnixNano) >= BigInt(root.startTimeUnixNano)).toBe(true);
    expect(BigInt(s.endTimeUnixNano) <= BigInt(root.endTimeUnixNano)).toBe(true);
  }
  expect(new Set(spans.map((s) => s.spanId)).size).toBe(spans.length);
});

const span = (threadId: string, n: number): Span => ({
  traceId: "a".repeat(32),
  spanId: n.toString(16).padStart(16, "0"),
  ...(n > 1 ? { parentSpanId: "1".padStart(16, "0") } : {}),
  name: `s${n}`,
  kind: n > 1 ? 3 : 1,
  startMs: 1_764_680_000_000.5 + n,
  endMs: 1_764_680_000_100 + n,
  attributes: { "weft.thread.id": threadId, n, ratio: n / 4, cost: new Double(n === 4 ? 1 : n / 10), flag: n % 2 === 0, none: "", zero: 0, below: -n, big: 2 ** 40 + n, text: `né ✓ 𝄞 ${"x".repeat(n * 40)}`, list: [`x${n}`, "y"] },
  status: (n % 3) as 0 | 1 | 2,
});

it("the same spans decode alike from OTLP protobuf and OTLP JSON", async () => {
  const viaProtobuf = `thread-pb-${crypto.randomUUID()}`;
  const viaJson = `thread-json-${crypto.randomUUID()}`;
  const protobuf = new OtlpExporter("http://otlp.test/v1/traces");
  const json = new OtlpExporter("http://otlp.test/v1/traces", undefined, "http/json");
  for (let n = 1; n <= 5; n++) {
    protobuf.add(span(viaProtobuf, n));
    json.add(span(viaJson, n));
  }
  await Promise.all([protobuf.flush(), json.flush()]);
  const [pb] = await exportsOf(viaProtobuf);
  const [js] = await exportsOf(viaJson);
  expect([pb!.contentType, js!.contentType]).toEqual(["application/x-protobuf", "application/json"]);
  const same = (spans: DecodedSpan[]) => spans.map((s) => ({ ...s, attributes: { ...s.attributes, "weft.thread.id": "-" } }));
  expect(same(pb!.spans)).toEqual(same(js!.spans));
  // A Double is a double in both, a whole one too; a plain number only when it is not whole.
  expect([pb!.doubles, js!.doubles]).toEqual([["cost", "ratio"], ["cost", "ratio"]]);
  expect(pb!.spans[1]).toEqual({
    traceId: "a".repeat(32),
    spanId: "0000000000000002",
    parentSpanId: "0000000000000001",
    name: "s2",
    kind: 3,
    startTimeUnixNano: "1764680000002500000",
    endTimeUnixNano: "1764680000102000000",
    attributes: { "weft.thread.id": viaProtobuf, n: 2, ratio: 0.5, cost: 0.2, flag: true, none: "", zero: 0, below: -2, big: 2 ** 40 + 2, text: `né ✓ 𝄞 ${"x".repeat(80)}`, list: ["x2", "y"] },
    status: { code: 2 },
  });
});

it("the exporter's buffer is bounded: past it spans are dropped and counted, and the count is sent", async () => {
  const threadId = `thread-bounded-${crypto.randomUUID()}`;
  const exporter = new OtlpExporter("http://otlp.test/v1/traces");
  for (let i = 0; i < MAX_BUFFERED_SPANS + 5; i++) exporter.add(span(threadId, i + 1));
  expect(exporter.dropped).toBe(5);
  await exporter.flush();
  expect(exporter.dropped).toBe(0);
  const [sent] = await exportsOf(threadId);
  expect(sent!.spans).toHaveLength(MAX_BUFFERED_SPANS);
  expect(sent!.resource).toEqual({ "service.name": "weft", "weft.spans_dropped": 5 });
  // A collector that fails or refuses costs nothing but a log line; the next batch starts empty.
  for (const send of [async () => Promise.reject(new Error("collector down")), undefined]) {
    const failing = new OtlpExporter("http://otlp.test/refuses", send);
    failing.add(span(threadId, 1));
    await expect(failing.flush()).resolves.toBeUndefined();
    await expect(failing.flush()).resolves.toBeUndefined();
  }
  expect(await exportsOf(threadId)).toHaveLength(1);
});

it("a W3C traceparent on the request that posts the message becomes the parent of the turn's trace; a malformed one is ignored", async () => {
  const user = await freshUser("trace");
  const post = async (traceparent: string) => {
    const key = fakeKey("tp");
    await scriptFake(key, [{ text: "hi" }]);
    const id = (await send(user.token, "POST", "/threads", { agent: "streaming", env: fakeEnv("openai-chat:gpt-4.1-mini", key) })).body.threadId as string;
    const res = await request(`/threads/${id}/messages`, { method: "POST", headers: { authorization: `Bearer ${user.token}`, "content-type": "application/json", traceparent }, body: JSON.stringify({ content: "go" }) }, null);
    expect(res.status).toBe(202);
    await stubOf(id).waitIdle();
    return spansIn(await turnExports(id));
  };
  const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
  const parent = "00f067aa0ba902b7";
  const spans = await post(`00-${traceId}-${parent}-01`);
  const root = spans.find((s) => s.name === "invoke_agent streaming")!;
  expect([root.traceId, root.parentSpanId]).toEqual([traceId, parent]);
  expect(spans.filter((s) => s.name.startsWith("chat ")).every((s) => s.traceId === traceId && s.parentSpanId === root.spanId)).toBe(true);
  const ignored = (await post(`00-${"0".repeat(32)}-${parent}-01`)).find((s) => s.name === "invoke_agent streaming")!;
  expect(ignored.traceId).not.toBe("0".repeat(32));
  expect(ignored.parentSpanId).toBe("");
});

it("a chat span's cost is sent as a double even when whole (the scripted model's 0), so its type never changes with its value", async () => {
  const id = await createThread({ agent: "streaming" });
  await runTurn(id, "go", [{ text: "done" }]);
  const exports = await turnExports(id);
  const costed = exports.filter((e) => e.spans.some((s) => "weft.usage.cost_usd" in s.attributes));
  expect(spansIn(costed).flatMap((s) => ("weft.usage.cost_usd" in s.attributes ? [s.attributes["weft.usage.cost_usd"]] : []))).toEqual([0]);
  expect(costed.map((e) => e.doubles.includes("weft.usage.cost_usd"))).toEqual([true]);
});

it("each state.runCode run is a run_code span under the span of the tool call that ran it, with its executor and how it ended", async () => {
  const id = await createThread({ agent: "sandboxed" });
  const secretish = `code-words-${crypto.randomUUID()}`;
  await runTurn(id, "go", [
    { toolCalls: [{ id: "ok", name: "run_code", arguments: { source: `export default () => "${secretish}".length`, sandbox: "quickjs" } }] },
    { toolCalls: [{ id: "bad", name: "run_code", arguments: { source: "export default () => { throw new Error('no') }", sandbox: "quickjs" } }] },
    { text: "done" },
  ]);
  const spans = spansIn(await turnExports(id));
  const root = spans.find((s) => s.name === "invoke_agent sandboxed")!;
  const tool = (callId: string) => spans.find((s) => s.name === "execute_tool run_code" && s.attributes["gen_ai.tool.call.id"] === callId)!;
  const runs = spans.filter((s) => s.name.startsWith("run_code "));
  expect(runs.map((s) => [s.name, s.attributes["weft.code.executor"], s.attributes["weft.code.status"], s.status.code, s.attributes["gen_ai.tool.call.id"]])).toEqual([
    ["run_code quickjs", "quickjs", "success", 1, "ok"],
    ["run_code quickjs", "quickjs", "error", 2, "bad"],
  ]);
  for (const run of runs) {
    const parent = tool(run.attributes["gen_ai.tool.call.id"] as string);
    expect(parent.parentSpanId).toBe(root.spanId);
    expect([run.traceId, run.parentSpanId]).toEqual([root.traceId, parent.spanId]);
    expect(run.attributes["weft.code.execution_id"]).toMatch(/^code_[0-9a-f]{16}$/);
    expect(BigInt(run.startTimeUnixNano) >= BigInt(parent.startTimeUnixNano)).toBe(true);
    expect(BigInt(run.endTimeUnixNano) <= BigInt(parent.endTimeUnixNano)).toBe(true);
  }
  // The code's text is content: it reaches no collector.
  expect((await outboundContaining(secretish)).filter((r) => r.url.startsWith("http://otlp.test/"))).toEqual([]);
});

it("spans finished within WEFT_OTLP_DELAY_MS share one request; a full batch is sent without waiting", async () => {
  const threadId = `thread-batched-${crypto.randomUUID()}`;
  const tracer = threadTracerOf({ threadId, agentId: "streaming", userId: null }, { WEFT_OTLP_URL: "http://otlp.test/v1/traces", WEFT_OTLP_DELAY_MS: "2000" })!;
  for (const turnId of ["turn_a", "turn_b"]) {
    tracer.observe("turn_started", { turnId } as never);
    tracer.observe("turn_finished", { turnId, status: "completed", steps: 0 } as never);
  }
  // Both turns ended inside one delay: nothing is sent yet, then one request carries both.
  expect(await exportsOf(threadId)).toEqual([]);
  let exports = await turnExports(threadId);
  expect(exports).toHaveLength(1);
  expect(exports[0]!.spans.map((s) => s.attributes["weft.turn.id"])).toEqual(["turn_a", "turn_b"]);

  const full = new OtlpExporter("http://otlp.test/v1/traces", undefined, "http/protobuf", 3_600_000);
  const fullId = `thread-full-${crypto.randomUUID()}`;
  for (let i = 0; i < MAX_EXPORT_BATCH; i++) full.add(span(fullId, i + 1));
  full.soon();
  await until(async () => (exports = await exportsOf(fullId)).length > 0, "the full batch");
  expect(exports[0]!.spans).toHaveLength(MAX_EXPORT_BATCH);
});

it("WEFT_OTLP_PROTOCOL picks the encoding: http/json sends JSON; an unknown value is logged and protobuf is sent", async () => {
  const sent = async (protocol: string) => {
    const threadId = `thread-protocol-${crypto.randomUUID()}`;
    const tracer = threadTracerOf({ threadId, agentId: "streaming", userId: null }, { WEFT_OTLP_URL: "http://otlp.test/v1/traces", WEFT_OTLP_PROTOCOL: protocol })!;
    tracer.observe("turn_started", { turnId: "turn_p" } as never);
    tracer.observe("turn_finished", { turnId: "turn_p", status: "completed", steps: 0 } as never);
    return (await turnExports(threadId)).map((e) => e.contentType);
  };
  expect(await sent("http/json")).toEqual(["application/json"]);
  expect(await sent("http/protobuf")).toEqual(["application/x-protobuf"]);
  expect(await sent("grpc")).toEqual(["application/x-protobuf"]);
});
