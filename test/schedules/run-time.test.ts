import { afterEach, describe, expect, it } from "vitest";
import { createThreadState } from "../../src/run/state.js";
import { createThread, eventsOf, inThread, messagesOf, stubOf, subscribe } from "../helpers.js";
import { MINUTE, T0, deliverAlarm, occurrenceRuns, occurrencesOf, setClock } from "./helpers.js";

afterEach(() => setClock(null));

describe("schedules at run time", () => {
  it("a tool's state.schedule, listSchedules and cancelSchedule reach the thread's schedules", async () => {
    setClock(T0);
    const id = await createThread({ agent: "guarantees" });
    const out = await inThread(id, async (i) => {
      const state = createThreadState(i.world, undefined, null);
      const made = await state.schedule({ every: "10m", target: { tool: "effect_read", input: {} } });
      const listed = await state.listSchedules();
      const refused = await state.schedule({ every: "10m", target: { tool: "no_such_tool" } }).catch((e: { code: string; details: unknown }) => [e.code, e.details]);
      const cancelled = await state.cancelSchedule(made.scheduleId);
      return { made, listed: listed.schedules.map((s) => s.scheduleId), refused, cancelled: cancelled.status };
    });
    expect(out.listed).toEqual([out.made.scheduleId]);
    expect(out.made.nextDueAt).toBe(new Date(T0 + 10 * MINUTE).toISOString());
    expect(out.refused).toEqual(["invalid_schedule", { path: ["target", "tool"] }]);
    expect(out.cancelled).toBe("cancelled");
  });

  it("state.schedule refuses a tool input over the tool-input limit as stored, and one that is not JSON; nothing is stored", async () => {
    setClock(T0);
    const id = await createThread({ agent: "guarantees" });
    const out = await inThread(id, async (i) => {
      const state = createThreadState(i.world, undefined, null);
      const refusal = (e: { code: string; details: unknown }) => [e.code, e.details];
      const big = await state.schedule({ every: "10m", target: { tool: "effect_write", input: { label: "\u0001".repeat(200_000) } } }).catch(refusal);
      const cyclic: Record<string, unknown> = {};
      cyclic.self = cyclic;
      const notJson = await state.schedule({ every: "10m", target: { tool: "effect_write", input: cyclic } }).catch(refusal);
      return { big, notJson, listed: (await state.listSchedules()).schedules.length };
    });
    // 200,000 control characters are 1.2 MB as stored JSON (six bytes each), over a schedule's 64 KiB.
    expect(out.big).toEqual(["payload_too_large", { path: ["target", "input"], limit: 64 * 1024 }]);
    expect(out.notJson).toEqual(["invalid_schedule", { path: ["target", "input"] }]);
    expect(out.listed).toBe(0);
  });

  it("an agent target posts its message for a turn once, even when the alarm comes twice", async () => {
    setClock(T0);
    const id = await createThread({ agent: "guarantees", script: [{ text: "reminded" }] });
    const s = await inThread(id, (i) => i.schedules.create({ at: T0 + MINUTE, target: { agent: "guarantees", message: "remind the customer" } }, "tester"));
    setClock(T0 + MINUTE);
    await deliverAlarm(id);
    await inThread(id, (i) => i.alarm());
    await stubOf(id).waitIdle();
    const messages = (await messagesOf(id)).map((m) => [m.role, m.content]);
    expect(messages).toEqual([
      ["user", "remind the customer"],
      ["assistant", "reminded"],
    ]);
    expect((await occurrencesOf(id, s.scheduleId)).map((o) => o.status)).toEqual(["done"]);
    // An `at` schedule has no next occurrence: it is done.
    expect((await inThread(id, (i) => i.schedules.page().schedules))[0].status).toBe("done");
  });

  it("an alarm that fires on its own runs a schedule due in a second (real clock)", async () => {
    const id = await createThread({ agent: "guarantees" });
    const sub = await subscribe(id);
    const at = Date.now() + 1000;
    const s = await inThread(id, (i) => i.schedules.create({ at, target: { tool: "effect_write", input: { label: "on time" } } }, "tester"));
    await sub.until((frames) => frames.some((f) => f.type === "tool_call_finished"), 15_000);
    sub.close();
    const fired = sub.frames.find((f) => f.type === "schedule_fired")!;
    expect(fired.data).toMatchObject({ scheduleId: s.scheduleId, key: `${s.scheduleId}:${at}` });
    expect(await occurrenceRuns(id, s.scheduleId, at)).toEqual({ runs: 1 });
    expect((await eventsOf(id)).filter((e) => e.type === "schedule_fired").length).toBe(1);
  });
});
