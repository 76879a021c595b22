/**
 * Review 25: `missed: "all"` on an agent target (overlap left at its default, skip).
 *
 * docs/schedules.md: `missed: "all"` runs the latest 10 missed occurrences one after another;
 * `overlap` is about an occurrence due while the schedule's *previous* one still runs. For a tool
 * target a catch-up's own occurrences queue behind each other (schedules.ts: "Overlap is judged
 * against occurrences of earlier firings; a catch-up's own run in turn"). For an agent target,
 * journalOne counts the messages the same catch-up has just enqueued as "waiting", so every
 * catch-up occurrence after the first is journaled `skipped` with reason `overlap`: `all` runs one.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createThread, eventsOf } from "../helpers.js";
import { MINUTE, T0, deliverAlarm, makeSchedule, occurrencesOf, setClock } from "../schedules/helpers.js";

afterEach(() => setClock(null));

describe("missed: all, agent target, after 30 minutes of downtime", () => {
  it("posts each of the 6 missed occurrences (one after another), none skipped as overlapping itself", async () => {
    setClock(T0);
    const id = await createThread({ agent: "guarantees" });
    const s = await makeSchedule(id, { every: "5m", missed: "all", target: { agent: "guarantees", message: "catch up" } });
    setClock(T0 + 30 * MINUTE + 30_000);
    await deliverAlarm(id);
    const occ = (await occurrencesOf(id, s.scheduleId)).reverse().map((o) => [(o.dueAt - T0) / MINUTE, o.status]);
    const overlapSkips = (await eventsOf(id)).filter((e) => e.type === "schedule_skipped" && (e.data as { reason: string }).reason === "overlap").length;
    expect({ occ, overlapSkips }).toEqual({
      occ: [5, 10, 15, 20, 25, 30].map((m) => [m, "done"]),
      overlapSkips: 0,
    });
  });
});
