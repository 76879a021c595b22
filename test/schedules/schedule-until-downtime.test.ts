/**
 * Review 25: an `every` schedule with `until`, whose thread could not fire it for more than ten
 * periods (downtime, a backed-off alarm), and whose `until` passed meanwhile.
 *
 * dueThrough's `every` shortcut reads the window of the last ten periods before now, all of them past
 * `until`, so it answers no occurrence at all; fireOne then "advances" the schedule to the very
 * occurrence it already had (nextDue(after = nextDue - 1) = nextDue), the row stays due, and the
 * alarm fires it again and again: 200 firings a handler, each emitting schedule_skipped, re-armed
 * at once, for good. The occurrences before `until` never run (missed beyond policy), and the
 * schedule never ends.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createThread, eventsOf, inThread } from "../helpers.js";
import { MINUTE, T0, deliverAlarm, makeSchedule, occurrencesOf, setClock } from "./helpers.js";

afterEach(() => setClock(null));

/** The schedule events the thread emitted, by type. */
const scheduleEvents = async (id: string) => (await eventsOf(id)).filter((e) => e.type.startsWith("schedule_")).map((e) => e.type);

describe("every + until after downtime longer than ten periods", () => {
  it("runs what its missed policy keeps of the occurrences before until, ends done, and does not fire again and again", async () => {
    setClock(T0);
    const id = await createThread({ agent: "guarantees" });
    // Occurrences at T0+1m, +2m, +3m; none after T0+3m30s.
    const s = await makeSchedule(id, { every: "1m", until: T0 + 3 * MINUTE + 30_000, missed: "all", target: { tool: "effect_read", input: {} } });
    // The thread could not fire for 20 minutes.
    setClock(T0 + 20 * MINUTE);
    await deliverAlarm(id);
    const ran = (await occurrencesOf(id, s.scheduleId)).map((o) => (o.dueAt - T0) / MINUTE).reverse();
    const info = (await inThread(id, (i) => i.schedules.page().schedules))[0];
    const events = await scheduleEvents(id);
    expect({ ran, status: info.status, skippedEvents: events.filter((t) => t === "schedule_skipped").length }).toEqual({ ran: [1, 2, 3], status: "done", skippedEvents: 0 });
    // Delivered again, the alarm fires nothing more (it fired the same row 200 times a handler before).
    await deliverAlarm(id);
    expect(await scheduleEvents(id)).toEqual(events);
  });

  it("with more than ten occurrences before until, runs the newest ten, counts the others missed once, and ends done", async () => {
    setClock(T0);
    const id = await createThread({ agent: "guarantees" });
    const s = await makeSchedule(id, { every: "1m", until: T0 + 30 * MINUTE, missed: "all", target: { tool: "effect_read", input: {} } });
    setClock(T0 + 60 * MINUTE);
    await deliverAlarm(id);
    const ran = (await occurrencesOf(id, s.scheduleId)).map((o) => (o.dueAt - T0) / MINUTE).sort((a, b) => a - b);
    expect(ran).toEqual([21, 22, 23, 24, 25, 26, 27, 28, 29, 30]);
    const skipped = (await eventsOf(id)).filter((e) => e.type === "schedule_skipped").map((e) => e.data as { reason: string; count: number });
    expect(skipped).toEqual([expect.objectContaining({ reason: "missed", count: 20 })]);
    expect((await inThread(id, (i) => i.schedules.page().schedules))[0].status).toBe("done");
    const events = await scheduleEvents(id);
    await deliverAlarm(id);
    expect(await scheduleEvents(id)).toEqual(events);
  });
});
