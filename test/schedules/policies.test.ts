/**
 * The schedule fields the other files leave out: `jitterMs` (each occurrence late by the same
 * delay however often it is evaluated, never early), `until` (no occurrence after it; the
 * schedule ends `done`), and the per-thread limit of 10,000 active schedules (409
 * `too_many_schedules`, `scope: "thread"`, nothing stored).
 */
import { afterEach, describe, expect, it } from "vitest";
import { checkSchedule } from "../../src/schedules/define.js";
import { occurrenceKey } from "../../src/schedules/info.js";
import { MAX_SCHEDULES_PER_THREAD } from "../../src/schedules/schedules.js";
import { jitterOf } from "../../src/schedules/timing.js";
import { createThread, inThread, json } from "../helpers.js";
import { freshUser, send } from "../usage/users.js";
import { MINUTE, T0, alarmOf, deliverAlarm, makeSchedule, occurrenceRuns, occurrencesOf, setClock } from "./helpers.js";

afterEach(() => setClock(null));

describe("jitterMs and until", () => {
  it("jitterMs: the alarm waits for due + the occurrence's own delay; a firing before it runs nothing, at it runs once", async () => {
    setClock(T0);
    const id = await createThread({ agent: "guarantees" });
    const s = await makeSchedule(id, { every: "5m", jitterMs: 120_000, target: { tool: "effect_write", input: { label: "jittered" } } });
    const due = T0 + 5 * MINUTE;
    const delay = jitterOf(occurrenceKey(s.scheduleId, due), 120_000);
    expect(delay).toBeGreaterThan(0);
    expect(await alarmOf(id)).toBe(due + delay);
    setClock(due + delay - 1);
    await deliverAlarm(id);
    await inThread(id, (i) => i.schedules.fire());
    expect(await occurrencesOf(id, s.scheduleId)).toEqual([]);
    setClock(due + delay);
    await deliverAlarm(id);
    await inThread(id, (i) => i.schedules.fire());
    expect((await occurrencesOf(id, s.scheduleId)).map((o) => [o.dueAt, o.status])).toEqual([[due, "done"]]);
    expect(await occurrenceRuns(id, s.scheduleId, due)).toEqual({ runs: 1 });
  });

  it("until: occurrences up to it run, none after, and the schedule ends done", async () => {
    setClock(T0);
    const id = await createThread({ agent: "guarantees" });
    const s = await makeSchedule(id, { every: "5m", until: T0 + 12 * MINUTE, target: { tool: "effect_read", input: {} } });
    for (const n of [5, 10, 15, 20]) {
      setClock(T0 + n * MINUTE);
      await deliverAlarm(id);
    }
    expect((await occurrencesOf(id, s.scheduleId)).map((o) => (o.dueAt - T0) / MINUTE).reverse()).toEqual([5, 10]);
    expect((await inThread(id, (i) => i.schedules.page().schedules))[0]).toMatchObject({ status: "done", nextDueAt: null });
    // An until with no occurrence before it, and one in the past, are refused.
    expect(() => checkSchedule({ every: "1h", until: "2000-01-01T00:00:00Z", target: { tool: "t" } }, { agent: () => true, tool: () => true }, T0)).toThrow(/until is in the past/);
    const none = await json("POST", `/threads/${id}/schedules`, { every: "1h", until: Date.now() + 10 * MINUTE, target: { tool: "effect_read", input: {} } });
    expect(none).toMatchObject({ status: 400, body: { error: { code: "invalid_schedule", details: { path: ["until"] } } } });
  });
});

describe("the per-thread limit", () => {
  it(`a thread holding ${MAX_SCHEDULES_PER_THREAD} active schedules refuses one more: 409 too_many_schedules, scope thread, nothing stored`, async () => {
    // A user of its own: the schedules of the suite's other threads are not counted against it.
    const { token } = await freshUser("thread-limit");
    const id = (await send(token, "POST", "/threads", { agent: "guarantees" })).body.threadId as string;
    const post = () => send(token, "POST", `/threads/${id}/schedules`, { every: "1h", target: { tool: "effect_read", input: {} } });
    await inThread(id, (i) => {
      const store = i.schedules.store;
      const spec = checkSchedule({ every: "1h", target: { tool: "effect_read", input: {} } }, { agent: () => true, tool: () => true });
      const far = Date.UTC(2100, 0, 1);
      store.atomically(() => {
        for (let n = 0; n < MAX_SCHEDULES_PER_THREAD; n++) store.insert({ id: `sch_fill_${n}`, spec, owner: "tester", status: "active", anchor: far, nextDue: far + 3_600_000, fireAt: far + 3_600_000, createdAt: far });
      });
    });
    const res = await post();
    expect(res).toMatchObject({ status: 409, body: { error: { code: "too_many_schedules", details: { limit: MAX_SCHEDULES_PER_THREAD, scope: "thread", path: [] } } } });
    expect(await inThread(id, (i) => i.schedules.store.activeCount())).toBe(MAX_SCHEDULES_PER_THREAD);
    // One cancelled makes room.
    await inThread(id, (i) => i.schedules.cancel("sch_fill_0"));
    expect((await post()).status).toBe(201);
  });
});
