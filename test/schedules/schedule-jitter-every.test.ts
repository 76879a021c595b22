/**
 * A jitter as long as a schedule's interval (review 25). A schedule keeps one next occurrence and
 * fires its occurrences in order; with `every: "1m", jitterMs: 3600000` (both within the bounds the
 * docs gave) the first occurrence's own alarm came more than ten periods after it was due, so the
 * catch-up window skipped it as missed and nothing ran at all; the schedule was moved to the
 * occurrence it already had, and the alarm fired it again at once, 200 times a handler, a
 * `schedule_skipped` event each. Now such a jitter is refused where a schedule is made, and one
 * stored before is held under the time to the next occurrence.
 */
import { evictDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { occurrenceKey } from "../../src/schedules/info.js";
import { jitterOf } from "../../src/schedules/timing.js";
import { createThread, eventsOf, inThread, rawStub } from "../helpers.js";
import { MINUTE, T0, deliverAlarm, makeSchedule, occurrencesOf, setClock } from "./helpers.js";

afterEach(() => setClock(null));

const HOUR = 60 * MINUTE;
const TOOL = { tool: "effect_read", input: {} };

/** The schedule events of `scheduleId` the thread emitted. */
async function scheduleEvents(id: string, scheduleId: string): Promise<string[]> {
  return (await eventsOf(id)).filter((e) => e.type.startsWith("schedule_") && (e.data as { scheduleId?: string }).scheduleId === scheduleId).map((e) => e.type);
}

describe("a jitter as long as the time between two occurrences", () => {
  it.each([
    [{ every: "1m", jitterMs: HOUR }, 60_000],
    [{ every: "5m", jitterMs: 20 * MINUTE }, 300_000],
    [{ every: "1h", jitterMs: HOUR }, 3_600_000],
    [{ cron: "* * * * *", timezone: "UTC", jitterMs: HOUR }, 60_000],
    [{ cron: "0,10 * * * *", timezone: "UTC", jitterMs: 15 * MINUTE }, 600_000],
  ])("is refused where the schedule is made, naming jitterMs: %j", async (body, interval) => {
    setClock(T0);
    const id = await createThread({ agent: "guarantees" });
    const refused = await makeSchedule(id, { ...body, target: TOOL }).then(
      () => null,
      (e: { code?: string; details?: { path?: unknown }; message?: string }) => e,
    );
    expect(refused).toMatchObject({ code: "invalid_schedule", details: { path: ["jitterMs"] } });
    expect(refused!.message).toContain(`${interval} ms`);
    expect(await inThread(id, (i) => i.schedules.page().schedules)).toEqual([]);
  });

  it("one just under the interval is taken", async () => {
    setClock(T0);
    const id = await createThread({ agent: "guarantees" });
    const s = await makeSchedule(id, { every: "1m", jitterMs: MINUTE - 1, target: TOOL });
    expect(s.schedule.jitterMs).toBe(MINUTE - 1);
  });

  it("one stored before the rule is held under the interval: each occurrence fires in its minute, nothing is missed, nothing fires twice", async () => {
    setClock(T0);
    const id = await createThread({ agent: "guarantees" });
    const s = await makeSchedule(id, { every: "1m", target: TOOL });
    // As a schedule stored before the rule: an hour's jitter on a one-minute interval.
    await inThread(id, (i) => i.ctx.storage.sql.exec("UPDATE schedules SET spec = json_set(spec, '$.jitterMs', ?) WHERE id = ?", HOUR, s.scheduleId));
    await evictDurableObject(rawStub(id));
    for (let minute = 1; minute <= 3; minute++) {
      const due = T0 + minute * MINUTE;
      // Its own jitter would be up to an hour; held under the next occurrence, it fires within the minute.
      expect(jitterOf(occurrenceKey(s.scheduleId, due), HOUR)).toBeGreaterThanOrEqual(0);
      setClock(due + MINUTE - 1);
      await deliverAlarm(id);
    }
    const done = (await occurrencesOf(id, s.scheduleId)).map((o) => (o.dueAt - T0) / MINUTE).sort();
    expect(done).toEqual([1, 2, 3]);
    const events = await scheduleEvents(id, s.scheduleId);
    expect(events.filter((t) => t === "schedule_skipped")).toEqual([]);
    // Delivered again at the same time, the alarm fires nothing more (it looped before).
    const before = events.length;
    await deliverAlarm(id);
    expect((await scheduleEvents(id, s.scheduleId)).length).toBe(before);
  });
});
