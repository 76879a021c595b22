/**
 * A hook that never returns fails at its deadline (`WEFT_HOOK_TIMEOUT_MS`, 1 s in this project) as
 * if it threw: a `before_create_message` stores nothing of its message, and the thread is not held
 * (it held the thread's admission for good: no later message got a turn).
 */
import { describe, expect, it } from "vitest";
import { callsOf, createThread, eventsOf, inThread, json, messagesOf, stubOf, until } from "../helpers.js";
import { g, holdNextFlush } from "../calls/hold.js";
import { stuck } from "../fixtures/lib/hooked.js";

const turnsOf = async (id: string) =>
  (await eventsOf(id)).filter((e) => e.type === "turn_finished").map((e) => {
    const d = e.data as { status: string; error?: string };
    return d.error ? `${d.status}: ${d.error}` : d.status;
  });

describe("a hook past its deadline", () => {
  it("refuses the message of a free thread with hook_failed, and the next message runs", async () => {
    const id = await createThread({ agent: "hooked_too" });
    const hung = await json("POST", `/threads/${id}/messages`, { content: "[hang] hello" });
    const next = await json("POST", `/threads/${id}/messages`, { content: "next", script: [{ text: "next done" }] });
    await stubOf(id).waitIdle();
    expect({
      hung: [hung.status, hung.body.error?.code, hung.body.error?.message],
      next: next.body.queued,
      contents: (await messagesOf(id)).map((m) => m.content),
      turns: await turnsOf(id),
    }).toEqual({
      hung: [500, "hook_failed", 'agent "hooked_too" hook "before_create_message" did not finish within 1000 ms (WEFT_HOOK_TIMEOUT_MS)'],
      next: false,
      contents: ["next", "next done"],
      turns: ['failed: agent "hooked_too" hook "before_create_message" did not finish within 1000 ms (WEFT_HOOK_TIMEOUT_MS)', "completed"],
    });
  }, 30_000);

  it("holds a thenable that never settles to the same deadline", async () => {
    const id = await createThread({ agent: "hooked_too" });
    const hung = await json("POST", `/threads/${id}/messages`, { content: "[thenable] hello" });
    expect([hung.status, hung.body.error?.code, hung.body.error?.message]).toEqual([500, "hook_failed", 'agent "hooked_too" hook "before_create_message" did not finish within 1000 ms (WEFT_HOOK_TIMEOUT_MS)']);
  }, 30_000);

  it("refuses a message that waited behind a turn, and the thread takes the next one", async () => {
    const id = await createThread({ agent: "hooked_too" });
    // The first turn is held before it runs, so the message queues behind it.
    await holdNextFlush(id, "__hook_deadline");
    const first = await json("POST", `/threads/${id}/messages`, { content: "first", script: [{ text: "first done" }] });
    await until(async () => g.__hook_deadline?.held === true, "the first turn to be held");
    const hung = (await json("POST", `/threads/${id}/messages`, { content: "[hang] queued" })).body;
    await inThread(id, () => g.__hook_deadline.open());
    await until(async () => (await turnsOf(id)).length >= 2, "the queued message's admission to fail", 20_000);
    const after = (await json("POST", `/threads/${id}/messages`, { content: "after", script: [{ text: "after done" }] })).body;
    await stubOf(id).waitIdle();
    expect({ first: first.body.queued, hung, after: after.queued, contents: (await messagesOf(id)).map((m) => m.content), turns: (await turnsOf(id)).map((t) => t.split(":")[0]) }).toEqual({
      first: false,
      hung: { queued: true },
      after: false,
      contents: ["first", "first done", "after", "after done"],
      turns: ["completed", "failed", "completed"],
    });
  }, 30_000);

  it("refuses what the hook writes after its deadline (a value, a message)", async () => {
    const id = await createThread({ agent: "hooked_too" });
    const hung = await json("POST", `/threads/${id}/messages`, { content: "[gate] hello" });
    expect(hung.body.error?.code).toBe("hook_failed");
    // The hook goes on now, past its deadline.
    await inThread(id, () => stuck[id]!.open!());
    await until(async () => stuck[id]?.late !== undefined, "the late hook to write");
    const late = await inThread(id, (t) => t.world.store.kv.get("late"));
    expect({ late: stuck[id]!.late, value: late ?? null, contents: (await messagesOf(id)).map((m) => m.content) }).toEqual({
      late: expect.stringContaining("did not finish within 1000 ms (WEFT_HOOK_TIMEOUT_MS): setValue after that is refused"),
      value: null,
      contents: [],
    });
  }, 30_000);

  it("a before_create_message hook over a tool result past its deadline: the failed turn's step closes without the result it never let through (review 25b)", async () => {
    const id = await createThread({ agent: "review25b" });
    await json("POST", `/threads/${id}/messages`, {
      content: "go",
      script: [{ toolCalls: [{ id: "c1", name: "record_call", arguments: { note: "SECRET [rv-slow]" } }] }, { text: "done" }],
    });
    await stubOf(id).waitIdle();
    const result = (await messagesOf(id)).find((m) => m.role === "tool" && m.toolCallId === "c1");
    const call = (await callsOf(id)).find((c) => c.callId === "c1");
    // The step is closed (c1 has its result message), with nothing the redaction hook never saw: the call's record keeps the result.
    expect({ closed: result !== undefined, content: result?.content, call: call?.status }).toEqual({
      closed: true,
      content: "(the call's status is succeeded; its result is not in the history: the turn ended before the before_create_message hooks let it through)",
      call: "succeeded",
    });
  }, 30_000);


  it("a tool_call_finished hook of a queued call past its deadline: the call that ran and its result reach the history (review 25b)", async () => {
    const id = await createThread({ agent: "review25b", arguments: { hangFinishedOf: "record_call" } });
    await json("POST", `/threads/${id}/messages`, { content: "go", script: [{ toolCalls: [{ id: "q1", name: "queue_two", arguments: {} }] }, { text: "done" }] });
    await stubOf(id).waitIdle();
    const recorded = (await callsOf(id)).find((c) => c.toolName === "record_call");
    const messages = await messagesOf(id);
    expect({ ran: recorded?.status, inHistory: messages.some((m) => m.role === "tool" && m.toolCallId === recorded?.callId) }).toEqual({ ran: "succeeded", inHistory: true });
  }, 30_000);
});
