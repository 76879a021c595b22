/**
 * A cron's catch-up after a day and more of downtime computes up to 2,000 occurrences (about 0.3 s
 * of CPU each schedule), and an alarm fired up to 200 schedules: past a Durable Object's CPU limit,
 * every alarm would die before firing any, for good (review 25). One alarm now computes at most
 * ten such walks and arms itself again at once for the rest.
 */
import { afterEach, expect, it } from "vitest";
import { createThread, inThread } from "../helpers.js";
import { MINUTE, T0, alarmOf, deliverAlarm, makeSchedule, setClock } from "./helpers.js";

afterEach(() => setClock(null));

it("an alarm catching up 12 per-minute crons after 35 hours fires 10, re-arms at once, and the next fires the rest", async () => {
  setClock(T0);
  const id = await createThread({ agent: "guarantees" });
  for (let i = 0; i < 12; i++) await makeSchedule(id, { cron: "* * * * *", timezone: "UTC", missed: "once", target: { tool: "effect_read", input: {} } });
  const now = T0 + 35 * 60 * MINUTE;
  setClock(now);
  const moved = async () => (await inThread(id, (i) => i.schedules.page({ limit: 100 }).schedules)).filter((s: { nextDueAt: string }) => Date.parse(s.nextDueAt) > now).length;
  await deliverAlarm(id);
  expect(await moved()).toBe(10);
  // Armed again for the rest (with nothing of them started yet, only the schedules' own alarm is due).
  expect(await alarmOf(id)).not.toBeNull();
  expect(await deliverAlarm(id)).toBe(true);
  expect(await moved()).toBe(12);
});
