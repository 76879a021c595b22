/**
 * `overlap: "queue"` is bounded (hostile review): at most MAX_QUEUED (10) occurrences of a
 * schedule wait behind its running one; each one past that is journaled `skipped` with a
 * `schedule_skipped` event of reason `queue_full`, never queued without end nor dropped unseen.
 */
import { afterEach, describe, expect, it } from "vitest";
import { MAX_QUEUED } from "../../src/schedules/schedules.js";
import { createThread, eventsOf, inThread, json, stubOf } from "../helpers.js";
import { MINUTE, T0, deliverAlarm, makeSchedule, occurrencesOf, setClock } from "./helpers.js";

afterEach(() => setClock(null));

describe("the overlap queue", () => {
  it("a schedule's queue of occurrences waiting behind one that waits for a person stops at MAX_QUEUED; the rest are skipped as queue_full, visibly", async () => {
    setClock(T0);
    const id = await createThread({ agent: "guarantees" });
    const s = await makeSchedule(id, { every: "1m", overlap: "queue", target: { tool: "needs_ok", input: { amount: 500 } } });
    for (let m = 1; m <= 40; m++) {
      setClock(T0 + m * MINUTE);
      await deliverAlarm(id);
    }
    const all = await occurrencesOf(id, s.scheduleId);
    const count = (status: string) => all.filter((o) => o.status === status).length;
    expect(MAX_QUEUED).toBe(10);
    expect([count("started"), count("queued"), count("skipped")]).toEqual([1, MAX_QUEUED, 40 - 1 - MAX_QUEUED]);
    const full = (await eventsOf(id)).filter((e) => e.type === "schedule_skipped" && (e.data as { reason: string }).reason === "queue_full");
    expect(full.length).toBe(40 - 1 - MAX_QUEUED);
  });

  it("an agent target's waiting messages stop at MAX_QUEUED too", async () => {
    setClock(T0);
    const id = await createThread({ agent: "guarantees" });
    // A turn that waits for a person keeps every message in the inbox.
    await json("POST", `/threads/${id}/messages`, { content: "pay", script: [{ toolCalls: [{ id: "pay", name: "needs_ok", arguments: { amount: 500 } }] }, { text: "paid" }] });
    await stubOf(id).waitIdle();
    expect((await json("GET", `/threads/${id}`)).body.status).toBe("waiting");
    const s = await makeSchedule(id, { every: "1m", overlap: "queue", target: { agent: "guarantees", message: "tick" } });
    for (let m = 1; m <= 15; m++) {
      setClock(T0 + m * MINUTE);
      await deliverAlarm(id);
    }
    const all = await occurrencesOf(id, s.scheduleId);
    expect(await inThread(id, (i) => i.store.turns.inboxSize())).toBe(MAX_QUEUED);
    expect([all.filter((o) => o.status === "done").length, all.filter((o) => o.status === "skipped").length]).toEqual([MAX_QUEUED, 15 - MAX_QUEUED]);
  });
});
