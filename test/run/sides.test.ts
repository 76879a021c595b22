/**
 * Two-sided agents: the sides alternate on text answers, each sees the other's answers as user
 * messages, step counts are kept per side, a side's stop tool stops the turn (`stoppedBy`),
 * `forceTurn` picks the next side, and per-side `maxSteps` bound each side.
 */
import { evictDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Message } from "../../src/protocol.js";
import { historyFor } from "../../src/run/sides.js";
import { FAKE_BASE, fakeKey, fakeRequests, scriptFake } from "../fake-provider.js";
import { callsOf, createThread, eventsOf, json, rawStub, runTurn, stubOf } from "../helpers.js";

const call = (id: string, name: string, args: Record<string, unknown> = {}) => ({ toolCalls: [{ id, name, arguments: args }] });

describe("an agent with two sides", () => {
  it("alternates sides, counts steps per side, and stops when side b's stop tool succeeds", async () => {
    const id = await createThread({ agent: "desk", arguments: { problem: "parcel" } });
    await runTurn(id, "Hello", [
      { text: "How can I help?" },
      { text: "My parcel is late." },
      call("a1", "inspect_execution"),
      { text: "It ships tomorrow." },
      call("b1", "inspect_execution"),
      call("b2", "resolve_chat"),
      { text: "never said" },
    ]);
    const calls = Object.fromEntries((await callsOf(id)).map((c) => [c.callId, c]));
    const a1 = JSON.parse(calls.a1!.result!.result!);
    const b1 = JSON.parse(calls.b1!.result!.result!);
    expect(a1).toMatchObject({ currentSide: "a", stepCount: 3, sideAStepCount: 2, sideBStepCount: 1, stopped: false });
    expect(b1).toMatchObject({ currentSide: "b", stepCount: 5, sideAStepCount: 3, sideBStepCount: 2, stopped: false });
    // messageHistory is the stored conversation of both sides.
    expect(b1.history).toEqual(["user", "assistant", "assistant", "assistant", "tool", "assistant", "assistant"]);

    const messages = (await json("GET", `/threads/${id}/messages?limit=100`)).body.messages as Array<{ role: string; content: string; side?: string }>;
    expect(messages.filter((m) => m.role === "assistant" && m.content !== "").map((m) => [m.side, m.content])).toEqual([
      ["a", "How can I help?"],
      ["b", "My parcel is late."],
      ["a", "It ships tomorrow."],
    ]);
    expect(messages.some((m) => m.content === "never said")).toBe(false);
    const finished = (await eventsOf(id)).filter((e) => e.type === "turn_finished").map((e) => e.data);
    expect(finished).toEqual([expect.objectContaining({ status: "stopped", steps: 6, stoppedBy: "b" })]);
  });

  it("forceTurn picks the next side; per-side maxSteps bound each side, then the turn stops saying why", async () => {
    const id = await createThread({ agent: "desk" });
    const texts = Array.from({ length: 12 }, (_, i) => ({ text: `t${i + 1}` }));
    await runTurn(id, "Hello", [call("f1", "inspect_execution", { forceTurn: "b" }), ...texts]);
    const messages = (await json("GET", `/threads/${id}/messages?limit=100`)).body.messages as Array<{ role: string; content: string; side?: string }>;
    const answers = messages.filter((m) => m.role === "assistant").map((m) => `${m.side}:${m.content}`);
    // a calls forceTurn("b"): b answers next instead of a; then they alternate until b has had
    // its 3 steps, after which a goes on alone up to its 6.
    expect(answers).toEqual(["a:", "b:t1", "a:t2", "b:t3", "a:t4", "b:t5", "a:t6", "a:t7", "a:t8"]);
    const info = (await json("GET", `/threads/${id}`)).body;
    expect(info.lastTurn).toMatchObject({ status: "stopped", steps: 9, error: "both sides reached their maxSteps (a 6, b 3 model steps)" });
  });
});

/** A duo thread (side a scripted, side b on OpenAI) whose side b talks to the fake provider under `key`. */
async function duoThread(key: string): Promise<string> {
  return createThread({
    agent: "duo",
    env: { OPENAI_API_KEY: { value: key, type: "secret" }, OPENAI_BASE_URL: { value: FAKE_BASE, type: "text" } },
  });
}

const stepsOf = async (id: string) =>
  ((await json("GET", `/threads/${id}`)).body.lastTurn.modelSteps as Array<{ model: string; side?: string }>).map((s) => `${s.side}:${s.model}`);

describe("each side on its own model", () => {
  it("side b's prompt names a provider model: its steps go to that provider, side a's stay scripted", async () => {
    const key = fakeKey("duo");
    await scriptFake(key, [{ text: "My parcel is late." }, { toolCalls: [{ id: "b_end", name: "resolve_chat", arguments: "{}" }] }]);
    const id = await duoThread(key);
    await runTurn(id, "Hello", [{ text: "How can I help?" }, call("a1", "inspect_execution"), { text: "It ships tomorrow." }]);
    const info = (await json("GET", `/threads/${id}`)).body;
    expect(info.lastTurn).toMatchObject({ status: "stopped", steps: 5 });
    expect((await eventsOf(id)).find((e) => e.type === "turn_finished")!.data).toMatchObject({ stoppedBy: "b" });
    expect(await stepsOf(id)).toEqual(["a:scripted", "b:openai:gpt-4.1-mini", "a:scripted", "a:scripted", "b:openai:gpt-4.1-mini"]);
    const requests = await fakeRequests(key);
    expect(requests).toHaveLength(2);
    // Side b's request carries its own system prompt, and sees side a's answers as user messages.
    const first = JSON.stringify(requests[0]!.body);
    expect(requests[0]!.body.model).toBe("gpt-4.1-mini");
    expect(first).toContain("You are a customer whose parcel is late.");
    expect(first).not.toContain("You are the support agent.");
    expect(first).toContain("How can I help?");
    const a1 = JSON.parse((await callsOf(id)).find((c) => c.callId === "a1")!.result!.result!);
    expect(a1).toMatchObject({ currentSide: "a", stepCount: 3, sideAStepCount: 2, sideBStepCount: 1 });
  });

  it("a two-sided turn resumed after a person's decision goes on with the waiting side and its per-side counts", async () => {
    const key = fakeKey("duo-wait");
    await scriptFake(key, [
      { toolCalls: [{ id: "b_pay", name: "needs_ok", arguments: '{"amount":500}' }] },
      { toolCalls: [{ id: "b_look", name: "inspect_execution", arguments: '{"stop":false,"forceTurn":null}' }] },
      { toolCalls: [{ id: "b_end", name: "resolve_chat", arguments: "{}" }] },
    ]);
    const id = await duoThread(key);
    await runTurn(id, "Hello", [{ text: "How can I help?" }, { text: "never played" }]);
    expect((await json("GET", `/threads/${id}`)).body.status).toBe("waiting");
    await evictDurableObject(rawStub(id));
    expect((await json("POST", `/threads/${id}/calls/b_pay/approve`, {})).status).toBe(200);
    await stubOf(id).waitIdle();
    const look = JSON.parse((await callsOf(id)).find((c) => c.callId === "b_look")!.result!.result!);
    expect(look).toMatchObject({ currentSide: "b", stepCount: 3, sideAStepCount: 1, sideBStepCount: 2 });
    const info = (await json("GET", `/threads/${id}`)).body;
    expect(info.lastTurn).toMatchObject({ status: "stopped", steps: 4 });
    expect(await stepsOf(id)).toEqual(["a:scripted", "b:openai:gpt-4.1-mini", "b:openai:gpt-4.1-mini", "b:openai:gpt-4.1-mini"]);
  });
});

describe("how each side sees the conversation", () => {
  const m = (id: number, role: Message["role"], content: string, side?: "a" | "b", extra: Partial<Message> = {}): Message => ({
    id, role, content, silent: false, createdAt: 0, ...(side ? { side } : {}), ...extra,
  });
  const stored = [
    m(1, "user", "Hello"),
    m(2, "assistant", "How can I help?", "a"),
    m(3, "assistant", "My parcel is late.", "b"),
    m(4, "assistant", "", "a", { toolCalls: [{ id: "a1", name: "lookup", arguments: "{}" }] }),
    m(5, "tool", "shipped", "a", { toolCallId: "a1", name: "lookup" }),
    m(6, "assistant", "It ships tomorrow.", "a"),
  ];

  it("each side is the assistant of its own messages; the other's answers are user messages; the other's calls stay out", () => {
    const view = (side: "a" | "b") => historyFor(side, true, stored).map((x) => `${x.role}:${x.content}`);
    expect(view("b")).toEqual(["user:Hello", "user:How can I help?", "assistant:My parcel is late.", "user:It ships tomorrow."]);
    expect(view("a")).toEqual(["user:Hello", "assistant:How can I help?", "user:My parcel is late.", "assistant:", "tool:shipped", "assistant:It ships tomorrow."]);
  });

  it("a one-sided agent sees the history as stored", () => {
    expect(historyFor("a", false, stored)).toEqual(stored);
  });
});
