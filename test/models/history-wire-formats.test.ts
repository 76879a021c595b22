/**
 * Property test: whatever happened in a thread (parallel calls, reused and odd ids, missing,
 * duplicate and late results, messages injected between a call and its result, queued calls,
 * denials, parks, stops, searches a provider ran itself), every request weft builds is accepted by the validator of each wire
 * format, which the fake provider servers run on every request they get.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readStep } from "../../src/run/step.js";
import { resolveModel } from "../../src/models/registry.js";
import type { Message } from "../../src/protocol.js";
import { FAKE_BASE, fakeEnv, fakeKey, fakeRequests, scriptFake } from "../fake-provider.js";
import { callsOf, createThread, json, stubOf } from "../helpers.js";

const WIRES: Array<[string, string, string]> = [
  ["openai-compatible:any", "OPENAI_COMPATIBLE_API_KEY", "OPENAI_COMPATIBLE_BASE_URL"],
  ["openai:gpt-4.1-mini", "OPENAI_API_KEY", "OPENAI_BASE_URL"],
  ["anthropic:claude-sonnet-4-5", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"],
];

const callId = fc.oneof(fc.constantFrom("call_0", "call_1", "toolu_1", "a"), fc.constantFrom("../x.y", "id with space", "x".repeat(60), "call_1_2"));
const text = fc.oneof(fc.constant(""), fc.string({ maxLength: 12 }));
const injected = fc.record({ role: fc.constantFrom<"user" | "system" | "assistant">("user", "system", "assistant"), content: text });
const resultKind = fc.constantFrom("ok", "missing", "twice", "denied", "parked", "late");

/** One thing that happened in a thread, as weft stores it. */
const op = fc.oneof(
  fc.record({ kind: fc.constant("user" as const), content: text }),
  fc.record({ kind: fc.constant("assistant" as const), content: text }),
  fc.record({
    kind: fc.constant("step" as const),
    content: text,
    calls: fc.array(fc.record({ id: callId, args: fc.constantFrom('{"a":1}', "{not json", "", '"str"'), result: resultKind }), { minLength: 1, maxLength: 3 }),
    between: fc.array(injected, { maxLength: 2 }),
  }),
  // Web searches a provider ran itself (this request's provider or another), maybe beside local calls.
  fc.record({ kind: fc.constant("searched" as const), content: text, by: fc.constantFrom("openai", "anthropic"), searches: fc.integer({ min: 1, max: 2 }), local: fc.boolean() }),
  fc.record({ kind: fc.constant("queued" as const), id: callId }),
  fc.record({ kind: fc.constant("orphan" as const), id: callId }),
);

type Op = typeof op extends fc.Arbitrary<infer T> ? T : never;

function historyOf(ops: Op[]): Message[] {
  const out: Message[] = [];
  const push = (m: Omit<Message, "id" | "silent" | "createdAt">) => out.push({ id: out.length + 1, silent: false, createdAt: 0, ...m });
  for (const o of ops) {
    if (o.kind === "user" || o.kind === "assistant") push({ role: o.kind, content: o.content });
    else if (o.kind === "queued") {
      push({ role: "assistant", content: "", toolCalls: [{ id: o.id, name: "t", arguments: "{}" }], metadata: { queued: true } });
      push({ role: "tool", content: "queued result", toolCallId: o.id, name: "t" });
    } else if (o.kind === "orphan") push({ role: "tool", content: "from a call outside the window", toolCallId: o.id, name: "t" });
    else if (o.kind === "searched") {
      const searches = Array.from({ length: o.searches }, (_, i) => {
        const id = `srv_${out.length}_${i}`;
        const value = [{ url: "https://example.com", title: "Example", pageAge: null, encryptedContent: "enc", type: "web_search_result" }];
        return { id, name: "web_search", arguments: '{"query":"q"}', providerExecuted: true, providerResult: { value, provider: o.by } };
      });
      const local = o.local ? [{ id: `loc_${out.length}`, name: "t", arguments: "{}" }] : [];
      push({ role: "assistant", content: o.content, toolCalls: [...searches, ...local] });
      for (const c of local) push({ role: "tool", content: "ok", toolCallId: c.id, name: "t" });
    }
    else {
      push({ role: "assistant", content: o.content, toolCalls: o.calls.map((c) => ({ id: c.id, name: "t", arguments: c.args })) });
      for (const m of o.between) push(m);
      const results = o.calls.filter((c) => c.result !== "missing");
      const ordered = [...results.filter((c) => c.result !== "late"), ...results.filter((c) => c.result === "late")];
      for (const c of ordered) {
        const content = c.result === "denied" ? "denied by ops" : c.result === "parked" ? "parked: interrupted by a restart" : "ok";
        push({ role: "tool", content, toolCallId: c.id, name: "t" });
        if (c.result === "twice") push({ role: "tool", content: "again", toolCallId: c.id, name: "t" });
      }
    }
  }
  push({ role: "user", content: "what now?" });
  return out;
}

describe.each(WIRES)("provider histories: %s", (spec, keyEnv, urlEnv) => {
  it("every random thread history maps to a request the wire format's validator accepts", async () => {
    const key = fakeKey("history");
    const values: Record<string, string> = { [keyEnv]: key, [urlEnv]: FAKE_BASE };
    const model = resolveModel(spec, { lookup: (n) => (values[n] ? { value: values[n], level: "thread" } : undefined), binding: () => undefined }, "test");
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 8 }), async (ops) => {
        await scriptFake(key, [{ text: "ok" }]);
        const messages = historyOf(ops);
        const step = await readStep(model.stream({ threadId: "t", turnId: "turn", step: 1, messages, tools: [], signal: new AbortController().signal }));
        expect(step.text).toBe("ok");
      }),
      { numRuns: 60 },
    );
  }, 120_000);
});

describe("a user message while a call waits for approval", () => {
  it("joins the history only after the call's answer, so no request has an unanswered call", async () => {
    const key = fakeKey("approval");
    await scriptFake(key, [
      { toolCalls: [{ id: "pay", name: "needs_ok", arguments: '{"amount":500}' }] },
      { text: "Paid." },
      { text: "Your balance is fine." },
    ]);
    const id = await createThread({ agent: "guarantees", env: fakeEnv("anthropic:claude-sonnet-4-5", key) });
    await json("POST", `/threads/${id}/messages`, { content: "pay 500" });
    await stubOf(id).waitIdle();
    expect((await callsOf(id))[0]).toMatchObject({ callId: "pay", status: "awaiting_approval" });
    expect((await json("POST", `/threads/${id}/messages`, { content: "also, what is my balance?" })).body).toMatchObject({ queued: true });
    expect((await json("POST", `/threads/${id}/calls/pay/approve`, {})).status).toBe(200);
    await stubOf(id).waitIdle();
    const requests = await fakeRequests(key);
    // The resumed turn answers the call; the question waited in the inbox for the next turn.
    expect(requests).toHaveLength(3);
    expect(JSON.stringify(requests[1]!.body.messages)).not.toContain("what is my balance");
    const messages = requests[2]!.body.messages as Array<{ role: string; content: any }>;
    // The call's result comes first, in the user message right after the call; the question after it.
    const resultAt = messages.findIndex((m) => Array.isArray(m.content) && m.content.some((b: any) => b.type === "tool_result" && b.tool_use_id === "pay"));
    const questionAt = messages.findIndex((m) => JSON.stringify(m.content).includes("what is my balance"));
    expect(resultAt).toBeGreaterThan(0);
    expect(questionAt).toBeGreaterThanOrEqual(resultAt);
    expect((await json("GET", `/threads/${id}`)).body.lastTurn.status).toBe("completed");
  });
});
