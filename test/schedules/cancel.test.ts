/**
 * Cancel takes back what has not started (hostile review): an agent target's message the firing
 * put in the thread's inbox, waiting behind a turn, leaves with the cancel; no turn takes it.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createThread, json, messagesOf, stubOf } from "../helpers.js";
import { MINUTE, T0, deliverAlarm, makeSchedule, occurrencesOf, setClock } from "./helpers.js";

afterEach(() => setClock(null));

describe("cancel and an agent target's waiting message", () => {
  it("no turn takes a cancelled schedule's message; its occurrence ends cancelled", async () => {
    const id = await createThread({ agent: "guarantees" });
    // A turn waits for a person: the schedule's message waits behind it.
    await json("POST", `/threads/${id}/messages`, { content: "pay", script: [{ toolCalls: [{ id: "pay", name: "needs_ok", arguments: { amount: 500 } }] }, { text: "paid" }] });
    await stubOf(id).waitIdle();
    expect((await json("GET", `/threads/${id}`)).body.status).toBe("waiting");
    setClock(T0);
    const s = await makeSchedule(id, { every: "1m", missed: "all", overlap: "queue", target: { agent: "guarantees", message: "SCHEDULED WORK" } });
    setClock(T0 + 3 * MINUTE);
    await deliverAlarm(id);
    expect((await occurrencesOf(id, s.scheduleId)).length).toBe(3);
    const cancelled = await json("DELETE", `/threads/${id}/schedules/${s.scheduleId}`);
    expect(cancelled.body.status).toBe("cancelled");
    expect((await occurrencesOf(id, s.scheduleId)).map((o) => o.status)).toEqual(["cancelled", "cancelled", "cancelled"]);
    // The person decides; the thread goes on with what is in its inbox.
    expect((await json("POST", `/threads/${id}/calls/pay/approve`, {})).status).toBe(200);
    await stubOf(id).waitIdle();
    const messages = await messagesOf(id);
    expect(messages.filter((m) => m.content === "SCHEDULED WORK")).toEqual([]);
    expect(messages.some((m) => m.content === "paid")).toBe(true);
  });
});
