/**
 * A stop asked after a turn's messages were admitted and before the turn began (the storage flush
 * between) is kept with the turn the admission began and answered at once; it reaches no message
 * posted meanwhile (which took the admitted row's id: review 23g), and a restart in that window
 * resumes the turn stopped.
 */
import { describe, expect, it } from "vitest";
import { createThread, eventsOf, inThread, json, messagesOf, stubOf, until } from "../helpers.js";
import { g, holdNextFlush } from "./hold.js";

const finishedOf = async (id: string) => (await eventsOf(id)).filter((e) => e.type === "turn_finished").map((e) => (e.data as { status: string }).status);

describe("a stop asked after a turn's messages were admitted, before the turn began (startWithInbox's flush)", () => {
  it("stops that turn only: a message queued meanwhile gets a turn that is not stopped", async () => {
    const id = await createThread({ agent: "guarantees" });
    await holdNextFlush(id, "__r23g_a");
    // No script of its own: the scripted model plays the thread's steps in order, and the stopped turn plays none.
    const post = json("POST", `/threads/${id}/messages`, { content: "one" }).catch((e) => e);
    await until(async () => g.__r23g_a?.held === true, "the admission to commit and the flush to be held");
    // "one" left the inbox (its row deleted); "two" queues behind it and SQLite gives it the same id.
    const queued = (await json("POST", `/threads/${id}/messages`, { content: "two", script: [{ text: "two done" }] })).body;
    const inboxIds = await inThread(id, (t) => t.store.turns.inbox().map((p: { id: number }) => p.id));
    // The stop of the turn the admission began ("one"'s), answered at once.
    const stopped = (await json("POST", `/threads/${id}/stop`)).body;
    await inThread(id, () => g.__r23g_a.open());
    await post;
    await stubOf(id).waitIdle();
    await until(async () => (await finishedOf(id)).length >= 2, "both turns to end", 10_000);
    expect({
      queued,
      inboxIds,
      stopped,
      finished: await finishedOf(id),
      last: (await messagesOf(id)).at(-1)?.content,
    }).toEqual({
      queued: { queued: true },
      inboxIds: [2],
      stopped: { stopped: true },
      // "one"'s turn stopped as asked; "two"'s turn is its own: completed.
      finished: ["stopped", "completed"],
      last: "two done",
    });
  }, 30_000);
});

describe("a restart after a turn's messages were admitted, before the turn ran (startWithInbox's flush)", () => {
  it("keeps the stop it answered: the turn the admission began resumes stopped, its step never played", async () => {
    const id = await createThread({ agent: "guarantees" });
    await holdNextFlush(id, "__r23g_b");
    const post = json("POST", `/threads/${id}/messages`, { content: "one", script: [{ text: "one done" }] }).catch((e) => e);
    await until(async () => g.__r23g_b?.held === true, "the admission to commit and the flush to be held");
    // The admission began the turn: the stop is kept with its row and answered at once.
    const stopped = (await json("POST", `/threads/${id}/stop`)).body;
    await inThread(id, (t) => t.ctx.abort("restart before the turn ran")).catch(() => undefined);
    await post;
    await until(async () => (await json("GET", `/threads/${id}`)).body.lastTurn?.status === "stopped", "the turn to resume stopped", 10_000);
    expect({ stopped, contents: (await messagesOf(id)).map((m) => m.content), finished: await finishedOf(id) }).toEqual({
      stopped: { stopped: true },
      contents: ["one"],
      finished: ["stopped"],
    });
  }, 30_000);
});
