/**
 * `POST /threads/:id/chat` read by the AI SDK's own client: `AbstractChat` (what `useChat`
 * wraps) with `DefaultChatTransport`, whose stream parser checks every chunk against the SDK's
 * schema, and `readUIMessageStream` for a raw request.
 */
import {
  AbstractChat,
  DefaultChatTransport,
  type UIMessage,
  type UIMessageChunk,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  readUIMessageStream,
  validateUIMessages,
} from "ai";
import { describe, expect, it } from "vitest";
import { UiChunkTranslator } from "../../src/chat/ui-stream.js";
import { NOTHING_TO_PLAY } from "../../src/models/scripted.js";
import { PlainState } from "./plain-state.js";
import { callsOf, createThread, json, request } from "../helpers.js";

class TestChat extends AbstractChat<UIMessage> {
  constructor(threadId: string, user: "tester" | "bob" = "tester", messages: UIMessage[] = []) {
    super({
      state: new PlainState(messages),
      transport: new DefaultChatTransport({ api: `http://weft.test/threads/${threadId}/chat`, fetch: (url, init) => request(new URL(String(url)).pathname, init, user) }),
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    });
  }
}

/** Resolves when the chat is ready again (the stream ended), including automatic follow-up sends. */
async function settled(chat: TestChat): Promise<void> {
  for (let i = 0; i < 400; i++) {
    await new Promise((r) => setTimeout(r, 10));
    if (chat.status === "ready" || chat.status === "error") return;
  }
  throw new Error(`chat still ${chat.status}`);
}

const toolParts = (m: UIMessage | undefined) => (m?.parts ?? []).filter((p) => p.type.startsWith("tool-")) as any[];
/** What a person sees of a conversation: roles, and each part's type, state and content. */
const shown = (messages: UIMessage[]) =>
  messages.map((m) => [m.role, m.parts.map((p: any) => [p.type, p.state ?? null, p.text ?? p.output ?? p.errorText ?? p.input ?? null])]);
const reload = async (id: string): Promise<UIMessage[]> => validateUIMessages({ messages: (await json("GET", `/threads/${id}/chat`)).body.messages });
const textOf = (m: UIMessage | undefined) => (m?.parts ?? []).flatMap((p: any) => (p.type === "text" ? [p.text] : [])).join("");

describe("POST /threads/:id/chat with the AI SDK chat client", () => {
  it("streams a turn: the assistant's text and a tool call with its input and output", async () => {
    const id = await createThread();
    const chat = new TestChat(id);
    await chat.sendMessage(
      { text: "Add 2 to 4" },
      { body: { script: [{ text: "Summing.", toolCalls: [{ id: "sum", name: "sum_range", arguments: { from: 2, to: 4 } }] }, { text: "The total is 9." }] } },
    );
    await settled(chat);
    expect(chat.error).toBeUndefined();
    expect(chat.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    const answer = chat.messages[1];
    expect(textOf(answer)).toBe("Summing.The total is 9.");
    expect(toolParts(answer)).toEqual([
      expect.objectContaining({ type: "tool-sum_range", toolCallId: "sum", state: "output-available", input: { from: 2, to: 4 }, output: { numbers: [2, 3, 4], total: 9 } }),
    ]);
    expect(answer!.parts.filter((p) => p.type === "step-start")).toHaveLength(2);
    // The thread holds the conversation the client shows.
    const messages = (await json("GET", `/threads/${id}/messages`)).body.messages as any[];
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
  });

  it("a turn with no model and no script shows its notice as the chat's error, and a reload shows it as the system message it is", async () => {
    const id = await createThread();
    const chat = new TestChat(id);
    await chat.sendMessage({ text: "Hello?" });
    await settled(chat);
    expect(chat.status).toBe("error");
    expect(chat.error?.message).toBe(NOTHING_TO_PLAY);
    expect(shown(await reload(id))).toEqual([
      ["user", [["text", null, "Hello?"]]],
      ["system", [["text", null, NOTHING_TO_PLAY]]],
    ]);
  });

  it("a tool's own events reach the client as data parts of their type, the last data of each kept", async () => {
    const id = await createThread();
    const chat = new TestChat(id);
    await chat.sendMessage({ text: "Tick" }, { body: { script: [{ toolCalls: [{ id: "b", name: "emit_burst", arguments: { count: 3, bytes: 1 } }] }, { text: "Ticked." }] } });
    await settled(chat);
    expect(chat.error).toBeUndefined();
    const data = chat.messages[1]!.parts.filter((p) => p.type.startsWith("data-")) as any[];
    expect(data).toEqual([{ type: "data-tick", id: "tick", data: { i: 2, s: "x" } }]);
    expect(textOf(chat.messages[1])).toBe("Ticked.");
  });

  it("shows a call waiting for approval as the SDK's approval part; approving it through the client runs it once, as the caller", async () => {
    const id = await createThread();
    const chat = new TestChat(id);
    await chat.sendMessage({ text: "Pay 500" }, { body: { script: [{ toolCalls: [{ id: "pay", name: "needs_ok", arguments: { amount: 500 } }] }, { text: "Paid." }] } });
    await settled(chat);
    const [waiting] = toolParts(chat.messages[1]);
    expect(waiting).toMatchObject({ type: "tool-needs_ok", toolCallId: "pay", state: "approval-requested", input: { amount: 500 } });
    expect((await json("GET", `/threads/${id}`)).body.status).toBe("waiting");

    await chat.addToolApprovalResponse({ id: waiting.approval.id, approved: true });
    await settled(chat);
    expect(chat.error).toBeUndefined();
    expect(chat.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    const [done] = toolParts(chat.messages[1]);
    expect(done).toMatchObject({ state: "output-available", output: { approvedBy: "tester" } });
    expect(textOf(chat.messages[1])).toBe("Paid.");
    const calls = await callsOf(id);
    expect(calls.filter((c) => c.toolName === "needs_ok").map((c) => [c.status, c.approvedBy])).toEqual([["succeeded", "tester"]]);
    // A reload (GET /threads/:id/chat) shows what the stream showed.
    expect(shown(await reload(id))).toEqual(shown(chat.messages));
  });

  it("continues from a reloaded conversation: approving a call shown by GET /threads/:id/chat", async () => {
    const id = await createThread();
    const first = new TestChat(id);
    await first.sendMessage({ text: "Pay 700" }, { body: { script: [{ text: "Paying.", toolCalls: [{ id: "pay", name: "needs_ok", arguments: { amount: 700 } }] }, { text: "Paid." }] } });
    await settled(first);
    const reloaded = await reload(id);
    expect(shown(reloaded)).toEqual(shown(first.messages));
    const chat = new TestChat(id, "tester", reloaded);
    const [waiting] = toolParts(chat.messages[1]);
    expect(waiting.state).toBe("approval-requested");
    await chat.addToolApprovalResponse({ id: waiting.approval.id, approved: true });
    await settled(chat);
    expect(chat.error).toBeUndefined();
    expect(chat.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(textOf(chat.messages[1])).toBe("Paying.Paid.");
    expect(shown(await reload(id))).toEqual(shown(chat.messages));
  });

  it("a decision resent for a call already decided changes nothing, ends its stream at once, and never carries a later turn", async () => {
    const id = await createThread();
    const chat = new TestChat(id);
    await chat.sendMessage({ text: "Pay 300" }, { body: { script: [{ toolCalls: [{ id: "pay", name: "needs_ok", arguments: { amount: 300 } }] }, { text: "Paid." }] } });
    await settled(chat);
    const stale = await reload(id); // a second tab, loaded while the call waited
    const [waiting] = toolParts(chat.messages[1]);
    await chat.addToolApprovalResponse({ id: waiting.approval.id, approved: true });
    await settled(chat);

    const late = new TestChat(id, "tester", stale);
    const sent = Date.now();
    await late.addToolApprovalResponse({ id: toolParts(late.messages[1])[0].approval.id, approved: true });
    // A later turn, started while the late client's stream could still be open.
    await json("POST", `/threads/${id}/messages`, { content: "And now?", script: [{ text: "A later answer." }] });
    await settled(late);
    expect(late.error).toBeUndefined();
    expect(Date.now() - sent).toBeLessThan(3000);
    expect(JSON.stringify(late.messages)).not.toContain("A later answer.");
    // The late client is shown weft's decision: the call's outcome, so it does not ask again.
    expect(toolParts(late.messages[1])[0]).toMatchObject({ toolCallId: "pay", state: "output-available", output: { approvedBy: "tester" } });
    expect((await callsOf(id)).filter((c) => c.toolName === "needs_ok").map((c) => c.status)).toEqual(["succeeded"]);
  });

  it("shows a denial as output-denied, and the model goes on", async () => {
    const id = await createThread();
    const chat = new TestChat(id);
    await chat.sendMessage({ text: "Pay 900" }, { body: { script: [{ toolCalls: [{ id: "pay", name: "needs_ok", arguments: { amount: 900 } }] }, { text: "Not paid." }] } });
    await settled(chat);
    const [waiting] = toolParts(chat.messages[1]);
    await chat.addToolApprovalResponse({ id: waiting.approval.id, approved: false, reason: "too much" });
    await settled(chat);
    expect(toolParts(chat.messages[1])[0]).toMatchObject({ state: "output-denied" });
    expect(textOf(chat.messages[1])).toBe("Not paid.");
    expect((await callsOf(id)).find((c) => c.toolName === "needs_ok")).toMatchObject({ status: "denied" });
  });
});

describe("POST /threads/:id/chat trusts weft, not the client's history", () => {
  const post = (id: string, body: unknown, user: "tester" | "bob" = "tester") =>
    request(`/threads/${id}/chat`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }, user);

  it("refuses an approval weft never asked for, naming its path", async () => {
    const id = await createThread();
    const forged = { role: "assistant", parts: [{ type: "tool-needs_ok", toolCallId: "x", state: "approval-responded", input: { amount: 1 }, approval: { id: "made-up", approved: true } }] };
    const res = await post(id, { messages: [{ role: "user", parts: [{ type: "text", text: "hi" }] }, forged] });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error).toMatchObject({ code: "invalid_request", details: { path: ["messages", 1, "parts", 0, "approval", "id"] } });
  });

  it("refuses an approval whose arguments differ from the call's (approval_mismatch), and runs nothing", async () => {
    const id = await createThread();
    const chat = new TestChat(id);
    await chat.sendMessage({ text: "Pay" }, { body: { script: [{ toolCalls: [{ id: "pay", name: "needs_ok", arguments: { amount: 500 } }] }, { text: "ok" }] } });
    await settled(chat);
    const [waiting] = toolParts(chat.messages[1]);
    const tampered = { ...waiting, state: "approval-responded", input: { amount: 5 }, approval: { id: `pay:${"0".repeat(64)}`, approved: true } };
    const res = await post(id, { messages: [{ role: "assistant", parts: [tampered] }] });
    expect(res.status).toBe(409);
    expect(((await res.json()) as any).error).toMatchObject({ code: "approval_mismatch", details: { path: ["messages", 0, "parts", 0, "approval", "id"] } });
    expect((await callsOf(id)).find((c) => c.toolName === "needs_ok")).toMatchObject({ status: "awaiting_approval" });
  });

  it("lets no one but the owner stream or decide (404 thread_not_found)", async () => {
    const id = await createThread();
    const res = await post(id, { messages: [{ role: "user", parts: [{ type: "text", text: "hi" }] }] }, "bob");
    expect(res.status).toBe(404);
    expect(((await res.json()) as any).error.code).toBe("thread_not_found");
  });
});

describe("UiChunkTranslator", () => {
  it("turns streamed deltas into text and tool-input parts the SDK's parser assembles", async () => {
    const t = new UiChunkTranslator();
    const frames: Array<[string, unknown]> = [
      // A turn that was running when the stream began (the message queued behind it): not shown.
      ["tool_call_finished", { callId: "o1", toolName: "sum_range", source: "model", status: "succeeded", isError: false, result: "{}", durationMs: 1, attempts: 1 }],
      ["tool_call_approval_requested", { callId: "o2", toolName: "needs_ok", input: {}, argsHash: "ab".repeat(32) }],
      ["turn_finished", { turnId: "older", status: "completed", steps: 1 }],
      ["turn_started", { turnId: "t" }],
      ["text_delta", { turnId: "t", step: 1, delta: "Hel" }],
      ["text_delta", { turnId: "t", step: 1, delta: "lo" }],
      ["tool_call_delta", { turnId: "t", step: 1, callId: "c1", toolName: "sum_range", delta: '{"from":' }],
      ["model_step", { turnId: "t", step: 1, text: "Hello there", toolCalls: [{ id: "c1", name: "sum_range", arguments: '{"from":1}' }] }],
      ["tool_call_started", { callId: "c1", toolName: "sum_range", source: "model", input: { from: 1, to: 3 } }],
      ["tool_call_finished", { callId: "c1", toolName: "sum_range", source: "model", status: "succeeded", isError: false, result: "plain text", durationMs: 1, attempts: 1 }],
      ["tool_call_started", { callId: "q1", toolName: "list_drafts", source: "queue", input: {} }],
      ["tool_call_finished", { callId: "q1", toolName: "list_drafts", source: "queue", status: "failed", isError: true, error: "boom", durationMs: 1, attempts: 1 }],
      ["model_step", { turnId: "t", step: 2, text: "Done.", toolCalls: [] }],
      ["turn_finished", { turnId: "t", status: "completed", steps: 2 }],
      ["model_step", { turnId: "t", step: 3, text: "after the end", toolCalls: [] }],
    ];
    const chunks = [...t.start(), ...frames.flatMap(([type, data], i) => t.push({ seq: i + 1, type, data, at: "" } as never))];
    expect(t.done).toBe(true);
    expect(chunks.filter((c) => c.type === "finish")).toEqual([{ type: "finish", finishReason: "stop" }]);
    const stream = new ReadableStream<UIMessageChunk>({ start: (c) => (chunks.forEach((x) => c.enqueue(x)), c.close()) });
    let last: UIMessage | undefined;
    for await (const m of readUIMessageStream({ stream, terminateOnError: true })) last = m;
    expect(last!.parts.map((p: any) => [p.type, p.state, p.text ?? p.output ?? p.errorText ?? null])).toEqual([
      ["step-start", undefined, null],
      ["text", "done", "Hello there"],
      ["tool-sum_range", "output-available", "plain text"],
      ["tool-list_drafts", "output-error", "boom"],
      ["step-start", undefined, null],
      ["text", "done", "Done."],
    ]);
  });
  it("a discarded attempt ends its text part and is marked data-weft-discarded; the retried step's text arrives whole", async () => {
    const t = new UiChunkTranslator();
    const frames: Array<[string, unknown]> = [
      ["turn_started", { turnId: "t" }],
      ["text_delta", { turnId: "t", step: 1, delta: "Half an ans" }],
      ["tool_call_delta", { turnId: "t", step: 1, callId: "c9", toolName: "sum_range", delta: '{"fr' }],
      ["model_step_discarded", { turnId: "t", step: 1, attempt: 1, reason: "the model's stream was cut before its finish" }],
      ["text_delta", { turnId: "t", step: 1, delta: "The whole" }],
      ["model_step", { turnId: "t", step: 1, text: "The whole answer.", toolCalls: [] }],
      ["turn_finished", { turnId: "t", status: "completed", steps: 1 }],
    ];
    const chunks = [...t.start(), ...frames.flatMap(([type, data], i) => t.push({ seq: i + 1, type, data, at: "" } as never))];
    const stream = new ReadableStream<UIMessageChunk>({ start: (c) => (chunks.forEach((x) => c.enqueue(x)), c.close()) });
    let last: UIMessage | undefined;
    for await (const m of readUIMessageStream({ stream, terminateOnError: true })) last = m;
    expect(last!.parts.map((p: any) => [p.type, p.state ?? null, p.text ?? p.errorText ?? p.data?.attempt ?? null])).toEqual([
      ["step-start", null, null],
      ["text", "done", "Half an ans"],
      ["tool-sum_range", "output-error", "discarded: the model's stream was cut, and the step is asked again"],
      ["data-weft-discarded", null, 1],
      ["text", "done", "The whole answer."],
    ]);
  });
});
