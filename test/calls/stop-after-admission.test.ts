/**
 * A stop asked after a turn's messages were admitted and before the turn began (the storage flush
 * between) is answered once the turn has begun with the stop kept on its row, and reaches no
 * message posted meanwhile (which took the admitted row's id: review 23g). A restart in that
 * window answers no stop true that it loses.
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
    // The stop of the turn about to begin ("one"'s): answered once it has begun.
    const stop = json("POST", `/threads/${id}/stop`);
    await new Promise((r) => setTimeout(r, 200));
    await inThread(id, () => g.__r23g_a.open());
    const stopped = (await stop).body;
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

describe("a restart after a turn's messages were admitted, before the turn began (startWithInbox's flush)", () => {
  it("answers no stop true that the restart loses", async () => {
    const id = await createThread({ agent: "guarantees" });
    await holdNextFlush(id, "__r23g_b");
    const post = json("POST", `/threads/${id}/messages`, { content: "one", script: [{ text: "one done" }] }).catch((e) => e);
    await until(async () => g.__r23g_b?.held === true, "the admission to commit and the flush to be held");
    const stop = json("POST", `/threads/${id}/stop`).then((r) => r.body, (e) => e);
    await new Promise((r) => setTimeout(r, 200));
    await inThread(id, (t) => t.ctx.abort("restart before the turn began")).catch(() => undefined);
    await post;
    const stopped = await stop;
    const info = (await json("GET", `/threads/${id}`)).body;
    // Answered true, the turn ended stopped; otherwise the answer was no stop.
    if ((stopped as { stopped?: boolean }).stopped === true) expect(info.lastTurn?.status).toBe("stopped");
    else expect(stopped).not.toEqual({ stopped: true });
  }, 30_000);
});
