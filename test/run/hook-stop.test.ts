/**
 * A stop (or a DELETE) cuts the wait for a hook that is stuck and stores nothing the history needs
 * (an admission's, `filter_messages`, `tool_call_started`), as it cuts a tool call or a model
 * stream: these run under the default hook deadline (30 s), and each stop lands well before it, so
 * what ends the wait is the stop. The hook's own code may go on; what it writes after the stop is
 * refused.
 */
import { describe, expect, it } from "vitest";
import { callsOf, createThread, eventsOf, inThread, json, messagesOf, stubOf, until } from "../helpers.js";
import { stuck } from "../fixtures/lib/hooked.js";

/** Waits until thread `id`'s fixture hook `hook` hangs. */
const untilStuck = (id: string, hook: string) => until(async () => stuck[id]?.hook === hook, `hook ${hook} to hang`, 20_000);

/** Far under the hook's 30 s deadline, and far over what a stop takes on a loaded machine. */
const PROMPTLY_MS = 12_000;

/** Each turn's end, as `status: error`. */
const turnsOf = async (id: string) =>
  (await eventsOf(id)).filter((e) => e.type === "turn_finished").map((e) => {
    const d = e.data as { status: string; error?: string };
    return d.error ? `${d.status}: ${d.error}` : d.status;
  });

/** Resolves once thread `id` is idle, or throws once {@link PROMPTLY_MS} pass. */
const idleSoon = (id: string) => until(async () => (await json("GET", `/threads/${id}`)).body.status === "idle", "the stopped thread to be idle", PROMPTLY_MS);

describe("a stop while a hook is stuck", () => {
  it("during a message's admission (before_create_message): the stop lands at once, the post answers queued, and the message waits for the next post, into a turn that begins stopped", async () => {
    const id = await createThread({ agent: "hooked_too" });
    const post = json("POST", `/threads/${id}/messages`, { content: "[gate] hello" });
    await untilStuck(id, "before_create_message");
    const cut = stuck[id]!;
    expect((await json("GET", `/threads/${id}`)).body.status).toBe("running");
    const stopped = (await json("POST", `/threads/${id}/stop`)).body;
    const posted = await post;
    await idleSoon(id);
    // No hook let it through: not stored, not admitted again at once (its hook may hang again), kept in the inbox.
    const held = { inbox: await inThread(id, (t) => t.world.store.turns.inboxSize() as number), contents: (await messagesOf(id)).map((m) => m.content) };
    // The next post admits it first, alone: its hooks run again (here held at a new gate).
    const next = json("POST", `/threads/${id}/messages`, { content: "next", script: [{ text: "next done" }] });
    await until(async () => stuck[id] !== cut, "the message's hooks to run again");
    await inThread(id, () => stuck[id]!.open!());
    const nextPosted = await next;
    await stubOf(id).waitIdle();
    expect({
      stopped,
      posted: [posted.status, posted.body],
      held,
      next: nextPosted.body.queued,
      contents: (await messagesOf(id)).map((m) => m.content),
      // The stop kept with it: its turn begins stopped; the next message's turn runs.
      turns: await turnsOf(id),
    }).toEqual({
      stopped: { stopped: true },
      posted: [202, { queued: true }],
      held: { inbox: 1, contents: [] },
      next: true,
      contents: ["written late by before_create_message", "[gate] hello", "next", "next done"],
      turns: ["stopped: thread stopped", "completed"],
    });
  }, 60_000);

  it("inside a turn (filter_messages): the turn ends stopped with the stop's reason at once", async () => {
    const id = await createThread({ agent: "hooked_too" });
    const posted = (await json("POST", `/threads/${id}/messages`, { content: "[hang-filter] go" })).body;
    await untilStuck(id, "filter_messages");
    const stopped = (await json("POST", `/threads/${id}/stop`)).body;
    await idleSoon(id);
    expect({ posted: posted.queued, stopped, contents: (await messagesOf(id)).map((m) => m.content), turns: await turnsOf(id) }).toEqual({
      posted: false,
      stopped: { stopped: true },
      contents: ["[hang-filter] go"],
      turns: ["stopped: thread stopped"],
    });
  }, 60_000);

  it("during a message's admission (after_create_message): the message is kept, and its turn ends stopped at once", async () => {
    const id = await createThread({ agent: "hooked_too" });
    const post = json("POST", `/threads/${id}/messages`, { content: "[hang-after] hello" });
    await untilStuck(id, "after_create_message");
    const stopped = (await json("POST", `/threads/${id}/stop`)).body;
    await idleSoon(id);
    const posted = await post;
    expect({ stopped, posted: [posted.status, posted.body.queued, posted.body.message?.content], contents: (await messagesOf(id)).map((m) => m.content), turns: await turnsOf(id) }).toEqual({
      stopped: { stopped: true },
      posted: [202, false, "[hang-after] hello"],
      contents: ["[hang-after] hello"],
      turns: ["stopped: thread stopped"],
    });
  }, 60_000);

  it("inside a turn (tool_call_started): the call never runs and ends aborted, and the step closes with its result", async () => {
    const id = await createThread({ agent: "hooked_too", arguments: { hangStarted: true } });
    await json("POST", `/threads/${id}/messages`, { content: "go", script: [{ toolCalls: [{ id: "r1", name: "remember", arguments: { word: "w" } }] }] });
    await untilStuck(id, "tool_call_started");
    const stopped = (await json("POST", `/threads/${id}/stop`)).body;
    await idleSoon(id);
    const messages = await messagesOf(id);
    expect({
      stopped,
      call: (await callsOf(id)).find((c) => c.callId === "r1")?.status,
      messages: messages.map((m) => [m.role, m.toolCallId ?? null]),
      result: messages.at(-1)?.content,
      turns: await turnsOf(id),
    }).toEqual({
      stopped: { stopped: true },
      call: "aborted",
      messages: [
        ["user", null],
        ["assistant", null],
        ["tool", "r1"],
      ],
      result: expect.stringContaining("aborted: the thread was stopped before the call ran"),
      turns: ["stopped: thread stopped"],
    });
  }, 60_000);

  it("refuses what the hook writes once the stop cut it (a value, a message)", async () => {
    const id = await createThread({ agent: "hooked_too" });
    const post = json("POST", `/threads/${id}/messages`, { content: "[gate] hello" });
    await untilStuck(id, "before_create_message");
    const cut = stuck[id]!;
    expect((await json("POST", `/threads/${id}/stop`)).body).toEqual({ stopped: true });
    await post;
    // The cut hook goes on now, after the stop (the message's hooks run again meanwhile, held at their own gate).
    await inThread(id, () => cut.open!());
    await until(async () => cut.late !== undefined, "the late hook to write");
    const late = await inThread(id, (t) => t.world.store.kv.get("late"));
    expect({ late: cut.late, value: late ?? null, contents: (await messagesOf(id)).map((m) => m.content) }).toEqual({
      late: expect.stringContaining("cut short by a stop (thread stopped)"),
      value: null,
      contents: [],
    });
  }, 60_000);
});

describe("a DELETE while a posted message's hook is stuck", () => {
  it("answers the post 404 thread_not_found at once, not at the hook's deadline", async () => {
    const id = await createThread({ agent: "hooked_too" });
    const post = json("POST", `/threads/${id}/messages`, { content: "[hang] hello" });
    await untilStuck(id, "before_create_message");
    const deleting = json("DELETE", `/threads/${id}`);
    const began = Date.now();
    const posted = await post;
    const tookMs = Date.now() - began;
    expect((await deleting).status).toBe(200);
    expect({ status: posted.status, code: posted.body.error?.code, deleted: posted.body.error?.details?.deleted, prompt: tookMs < PROMPTLY_MS }).toEqual({
      status: 404,
      code: "thread_not_found",
      deleted: true,
      prompt: true,
    });
  }, 60_000);
});
