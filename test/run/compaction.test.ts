import { describe, expect, it } from "vitest";
import { SUMMARY_HEADING } from "../../src/run/window.js";
import { FAKE_BASE, fakeEnv, fakeKey, fakeRequests, scriptFake } from "../fake-provider.js";
import { createThread, eventsOf, inThread, json, stubOf } from "../helpers.js";

/** Stores `n` messages straight into the thread: a task first, then chatter with one call and its result. */
async function seed(id: string, n: number, size: number): Promise<void> {
  await inThread(id, (instance) =>
    instance.store.atomically(() => {
      const { messages } = instance.store;
      messages.append({ role: "user", content: "TASK: book a flight to Lisbon for two, under 400 euros" });
      for (let i = 1; i < n; i++) {
        if (i === Math.floor(n / 2)) {
          messages.append({ role: "assistant", content: "", toolCalls: [{ id: "seed_call", name: "person", arguments: '{"name":"Ana","age":30}' }] });
          messages.append({ role: "tool", content: '{"name":"Ana","age":30}', toolCallId: "seed_call", name: "person" });
          continue;
        }
        messages.append({ role: i % 2 ? "assistant" : "user", content: `chatter ${i} `.padEnd(size, "·") });
      }
    }),
  );
}

async function post(id: string, content: string, script?: unknown[]) {
  const res = await json("POST", `/threads/${id}/messages`, { content, ...(script ? { script } : {}) });
  expect(res.status).toBeLessThan(300);
  await stubOf(id).waitIdle();
  return (await json("GET", `/threads/${id}`)).body;
}

const compactions = async (id: string) => (await eventsOf(id)).filter((f) => f.type === "history_compacted").map((f) => f.data as any);

describe("compaction", () => {
  it("summarizes what leaves the window with the configured model, once, and heads later requests with the stored summary", async () => {
    const main = fakeKey("main");
    const summarizer = fakeKey("sum");
    await scriptFake(summarizer, Array.from({ length: 12 }, (_, i) => ({ text: `summary v${i + 1}: the user wants a Lisbon flight` })));
    await scriptFake(main, [{ text: "answer 1" }, { text: "answer 2" }]);
    const id = await createThread({
      agent: "summarized",
      env: {
        ...fakeEnv("openai-compatible:x", main),
        ANTHROPIC_API_KEY: { value: summarizer, type: "secret" },
        ANTHROPIC_BASE_URL: { value: FAKE_BASE, type: "text" },
      },
    });
    await seed(id, 30, 400);
    const info = await post(id, "what next?");
    expect(info.lastTurn.status).toBe("completed");

    const summaryRequests = await fakeRequests(summarizer);
    expect(summaryRequests.length).toBeGreaterThanOrEqual(2);
    summaryRequests.forEach((r, i) => {
      expect(JSON.stringify(r.body.system)).toContain("You compact the older part of a conversation");
      const prompt = JSON.stringify(r.body.messages);
      // Each pass folds the next older messages into the summary so far.
      if (i === 0) expect(prompt).toContain("TASK: book a flight to Lisbon");
      else expect(prompt).toContain(`summary v${i}:`);
    });
    const [request] = await fakeRequests(main);
    const sent = request!.body.messages as Array<{ role: string; content: unknown }>;
    expect(sent[0]!.role).toBe("system");
    expect(String(sent[0]!.content)).toContain(SUMMARY_HEADING);
    expect(String(sent[0]!.content)).toContain(`summary v${summaryRequests.length}:`);
    expect(sent.at(-1)).toMatchObject({ role: "user", content: "what next?" });
    // The window (2000 tokens here) holds far fewer than the 32 stored messages.
    expect(sent.length).toBeLessThan(20);
    const [event] = await compactions(id);
    expect(event).toMatchObject({ model: "anthropic:claude-sonnet-4-5", messages: expect.any(Number), throughId: expect.any(Number) });
    // Summarized plus sent: every one of the 32 stored messages (31 seeded, the new one), none twice.
    expect(event.messages + sent.length - 1).toBe(32);

    // The next turn reuses the stored summary: no new summarizing request.
    await post(id, "and then?");
    expect(await fakeRequests(summarizer)).toHaveLength(summaryRequests.length);
    const second = (await fakeRequests(main))[1]!.body.messages as Array<{ role: string; content: unknown }>;
    expect(second[0]).toEqual(sent[0]);
    expect(await compactions(id)).toHaveLength(1);
  });

  it("with the scripted model the summary is extractive and keeps the thread's task; tools see the same window", async () => {
    const id = await createThread({ agent: "windowed" });
    await seed(id, 80, 120);
    const info = await post(id, "go on", [{ toolCalls: [{ id: "i1", name: "inspect_execution", arguments: {} }] }, { text: "ok" }]);
    expect(info.lastTurn.status).toBe("completed");
    const [event] = await compactions(id);
    expect(event).toMatchObject({ model: "scripted" });
    const window = await inThread(id, async (instance) => {
      const { conversationWindow } = await import("../../src/run/history.js");
      const { createScriptedModel } = await import("../../src/models/scripted.js");
      return conversationWindow(instance.world, createScriptedModel({ next: () => undefined }));
    });
    expect(window[0]).toMatchObject({ role: "system", metadata: { summary: { model: "scripted" } } });
    expect(window[0]!.content).toContain("Task (first user message): TASK: book a flight to Lisbon");
    expect(window.length).toBeLessThan(30);
    const inspected = (await json("GET", `/threads/${id}/calls`)).body.calls.find((c: any) => c.callId === "i1");
    const history = JSON.parse(inspected.result.result).history as string[];
    expect(history[0]).toBe("system");
    expect(history.length).toBeLessThan(30);
  });

  it('with compaction "drop" older messages leave the window with no summary', async () => {
    const id = await createThread({ agent: "windowed_drop" });
    await seed(id, 80, 120);
    await post(id, "go on", [{ text: "ok" }]);
    expect(await compactions(id)).toHaveLength(0);
    const { latest, window } = await inThread(id, async (instance) => {
      const { conversationWindow } = await import("../../src/run/history.js");
      const { createScriptedModel } = await import("../../src/models/scripted.js");
      return { latest: instance.store.summaries.latest(), window: conversationWindow(instance.world, createScriptedModel({ next: () => undefined })) };
    });
    expect(latest).toBeNull();
    expect(window[0]!.content).not.toContain(SUMMARY_HEADING);
    expect(window.at(-1)!.content).toBe("ok");
  });

  it("a summarizing model that fails ends the turn failed, saying so, and stores no summary", async () => {
    const main = fakeKey("main");
    const summarizer = fakeKey("sum");
    await scriptFake(summarizer, [{ error: { status: 400, message: "context too long" } }]);
    await scriptFake(main, [{ text: "never" }]);
    const id = await createThread({
      agent: "summarized",
      env: { ...fakeEnv("openai-compatible:x", main), ANTHROPIC_API_KEY: { value: summarizer, type: "secret" }, ANTHROPIC_BASE_URL: { value: FAKE_BASE, type: "text" } },
    });
    await seed(id, 30, 400);
    const info = await post(id, "what next?");
    expect(info.lastTurn.status).toBe("failed");
    expect(info.lastTurn.error).toMatch(/compacting the history with anthropic:claude-sonnet-4-5 failed: .*context too long/);
    expect(await fakeRequests(main)).toHaveLength(0);
    expect(await inThread(id, (instance) => instance.store.summaries.latest())).toBeNull();
  });
});
