/**
 * Inbox ids are never reused (migration v31). A schedule cancelled while its waiting message is
 * being admitted deleted the row under the admission, a message posted then took its id, and the
 * admission's `dropInbox(ids)` deleted that one (and a stop kept with the rows marked it). Review
 * 23g.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createThread, eventsOf, inThread, json, messagesOf, stubOf, until } from "../helpers.js";
import { g, holdAdmission } from "../calls/hold.js";
import { MINUTE, T0, deliverAlarm, makeSchedule, occurrencesOf, setClock } from "../schedules/helpers.js";

afterEach(() => setClock(null));

async function scheduledAdmissionHeld(tag: string): Promise<{ id: string; scheduleId: string }> {
  const id = await createThread({ agent: "guarantees" });
  setClock(T0);
  const s = await makeSchedule(id, { every: "1m", missed: "all", overlap: "queue", target: { agent: "guarantees", message: "SCHEDULED WORK" } });
  await holdAdmission(id, tag, (c) => c.includes("SCHEDULED WORK"));
  setClock(T0 + MINUTE);
  await deliverAlarm(id);
  await until(async () => g[tag]?.held === true, "the scheduled message's admission to be held", 10_000);
  return { id, scheduleId: s.scheduleId };
}

describe("a schedule cancelled while its message is being admitted", () => {
  it("stores nothing of the message and runs no turn for it: the occurrence ends cancelled, as answered", async () => {
    const { id, scheduleId } = await scheduledAdmissionHeld("__r24_s0");
    const cancelled = (await json("DELETE", `/threads/${id}/schedules/${scheduleId}`)).body.status;
    await inThread(id, () => g.__r24_s0.open());
    await stubOf(id).waitIdle();
    await new Promise((r) => setTimeout(r, 300));
    const info = (await json("GET", `/threads/${id}`)).body;
    expect({
      cancelled,
      occurrences: (await occurrencesOf(id, scheduleId)).map((o) => o.status),
      contents: (await messagesOf(id)).map((m) => m.content),
      turns: (await eventsOf(id)).filter((e) => e.type === "turn_started").length,
      status: info.status,
    }).toEqual({ cancelled: "cancelled", occurrences: ["cancelled"], contents: [], turns: 0, status: "idle" });
  }, 30_000);
});

describe("a schedule cancelled while its message is being admitted, then a message posted", () => {
  it("the posted message (answered queued) is neither lost nor stopped", async () => {
    const { id, scheduleId } = await scheduledAdmissionHeld("__r23g_s1");
    const cancelled = (await json("DELETE", `/threads/${id}/schedules/${scheduleId}`)).body.status;
    const queued = (await json("POST", `/threads/${id}/messages`, { content: "mine", script: [{ text: "mine done" }] })).body;
    const inboxIds = await inThread(id, (t) => t.store.turns.inbox().map((p: { id: number }) => p.id));
    await inThread(id, () => g.__r23g_s1.open());
    await stubOf(id).waitIdle();
    await new Promise((r) => setTimeout(r, 500));
    const contents = (await messagesOf(id)).map((m) => m.content);
    expect({ cancelled, queued, inboxIds, scheduled: contents.includes("SCHEDULED WORK"), mine: contents.includes("mine"), answered: contents.includes("mine done") }).toEqual({
      cancelled: "cancelled",
      scheduled: false,
      queued: { queued: true },
      // A new id, not the scheduled message's.
      inboxIds: [2],
      mine: true,
      answered: true,
    });
  }, 30_000);

  it("a stop asked of the scheduled message's turn does not reach the posted message's turn across a restart", async () => {
    const { id, scheduleId } = await scheduledAdmissionHeld("__r23g_s2");
    expect((await json("DELETE", `/threads/${id}/schedules/${scheduleId}`)).body.status).toBe("cancelled");
    expect((await json("POST", `/threads/${id}/messages`, { content: "mine", script: [{ text: "mine done" }] })).body).toMatchObject({ queued: true });
    // The stop of the turn being admitted (the scheduled message's): kept with the rows being admitted.
    const stopped = (await json("POST", `/threads/${id}/stop`)).body;
    const kept = await inThread(id, (t) => t.ctx.storage.sql.exec("SELECT id, reason FROM inbox_stops").toArray());
    await inThread(id, (t) => t.ctx.abort("restart before the turn began")).catch(() => undefined);
    await until(async () => {
      const info = (await json("GET", `/threads/${id}`)).body;
      return info.status === "idle" && info.lastTurn !== undefined;
    }, "the thread to come to rest", 20_000);
    const finished = (await eventsOf(id)).filter((e) => e.type === "turn_finished").map((e) => (e.data as { status: string }).status);
    const contents = (await messagesOf(id)).map((m) => m.content);
    expect({ stopped, kept, finished, answered: contents.includes("mine done") }).toEqual({
      stopped: { stopped: true },
      // Nothing of the scheduled message is left to keep a stop with ("mine" was posted as its own turn).
      kept: [],
      finished: ["completed"],
      answered: true,
    });
  }, 30_000);
});
