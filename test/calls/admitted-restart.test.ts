/**
 * A restart after a posted message was admitted (stored, gone from the inbox) and before its turn
 * ran: the turn began with the admission, in its transaction, so the thread resumes it on waking
 * (review 23g: the message waited in the history with no turn until someone posted again).
 */
import { describe, expect, it } from "vitest";
import { createThread, eventsOf, inThread, json, messagesOf, until } from "../helpers.js";
import { g, holdNextFlush } from "./hold.js";

describe("a restart between a message's admission and its turn", () => {
  it("runs the message's turn after the restart, with nothing posted again", async () => {
    const id = await createThread({ agent: "guarantees" });
    await holdNextFlush(id, "__admitted_restart");
    const post = json("POST", `/threads/${id}/messages`, { content: "one", script: [{ text: "one done" }] }).catch((e) => e);
    await until(async () => g.__admitted_restart?.held === true, "the admission to commit and the flush to be held");
    await inThread(id, (t) => t.ctx.abort("restart before the turn ran")).catch(() => undefined);
    await post;
    // Any look wakes the thread; the turn the admission began resumes by itself.
    await until(async () => (await json("GET", `/threads/${id}`)).body.lastTurn?.status === "completed", "the admitted message's turn to run", 10_000);
    const finished = (await eventsOf(id)).filter((e) => e.type === "turn_finished").map((e) => (e.data as { status: string }).status);
    expect({ finished, contents: (await messagesOf(id)).map((m) => m.content) }).toEqual({ finished: ["completed"], contents: ["one", "one done"] });
  }, 30_000);

  it("keeps the turn's watchdog armed with the admission, so the thread wakes without a request", async () => {
    const id = await createThread({ agent: "guarantees" });
    await holdNextFlush(id, "__admitted_alarm");
    const post = json("POST", `/threads/${id}/messages`, { content: "one", script: [{ text: "one done" }] }).catch((e) => e);
    await until(async () => g.__admitted_alarm?.held === true, "the admission to commit and the flush to be held");
    const state = await inThread(id, async (t) => ({ alarm: await t.ctx.storage.getAlarm(), status: t.store.turns.latestStatus() }));
    await inThread(id, () => g.__admitted_alarm.open());
    await post;
    expect({ armed: typeof state.alarm === "number", status: state.status }).toEqual({ armed: true, status: "running" });
  }, 30_000);
});
