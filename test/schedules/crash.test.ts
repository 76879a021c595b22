import { afterEach, describe, expect, it } from "vitest";
import { occurrenceCallId } from "../../src/schedules/info.js";
import { CLASSES, type EffectClass, MAY_REPEAT } from "../crash/matrix.js";
import { firedCrashes, planCrashes } from "../crash/plan.js";
import { callsOf, createThread, inThread } from "../helpers.js";
import { MINUTE, T0, deliverAlarm, makeSchedule, occurrenceRuns, occurrencesOf, setClock } from "./helpers.js";

afterEach(() => setClock(null));

/** The steps of one occurrence a crash cuts: the schedule's own, then the call pipeline's under the occurrence's call id. */
const STEPS = ["occurrence_due", "occurrence_journaled", "before_journal", "after_journal", "inside_execute", "after_effect", "while_recording", "after_result", "occurrence_done"] as const;

/** Every step for a write (the class that must never run twice); the steps around the effect for the rest. */
const CELLS: [EffectClass, (typeof STEPS)[number]][] = [
  ...STEPS.map((step) => ["write", step] as [EffectClass, (typeof STEPS)[number]]),
  ...(Object.keys(CLASSES) as EffectClass[]).filter((c) => c !== "write").flatMap((cls) => (["occurrence_journaled", "after_effect"] as const).map((step) => [cls, step] as [EffectClass, (typeof STEPS)[number]])),
];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Delivers alarms (the restart arms one of its own too) until the occurrence is done or waits for a person. */
async function settle(id: string, scheduleId: string, callId: string): Promise<string> {
  for (let round = 0; round < 60; round++) {
    await deliverAlarm(id);
    const [occ] = await occurrencesOf(id, scheduleId);
    const call = (await callsOf(id)).find((c) => c.callId === callId);
    if (occ?.status === "done") return `done:${call?.status}`;
    if (occ?.status === "started" && (call?.status === "parked" || call?.status === "awaiting_approval")) return `waits:${call.status}`;
    await sleep(20);
  }
  throw new Error("the occurrence never settled");
}

describe("a crash at each step of an occurrence, then alarms (and a second delivery): it runs once", () => {
  it.each(CELLS)("%s cut at %s", async (cls, step) => {
    setClock(T0);
    const id = await createThread({ agent: "guarantees" });
    const s = await makeSchedule(id, { every: "5m", target: { tool: CLASSES[cls], input: { label: "tick" } } });
    const due = T0 + 5 * MINUTE;
    const callId = occurrenceCallId(s.scheduleId, due);
    planCrashes(id, [{ point: step, callId }]);
    setClock(due);
    expect(await deliverAlarm(id)).toBe("crashed");
    expect(firedCrashes(id)).toEqual([`${step}:${callId}`]);
    const end = await settle(id, s.scheduleId, callId);
    // A second delivery, and firings side by side, after recovery: nothing runs again.
    await Promise.all([deliverAlarm(id), inThread(id, (i) => i.schedules.fire()), inThread(id, (i) => i.schedules.fire())]);
    const runs = (await occurrenceRuns(id, s.scheduleId, due)).runs;
    if (!MAY_REPEAT.has(cls)) expect(runs).toBeLessThanOrEqual(1);
    // Ran, or waits for a person (a write whose outcome the crash left unknown parks, by the effect table).
    if (end.startsWith("done")) expect(runs).toBeGreaterThanOrEqual(1);
    expect(end).toMatch(/^done:(succeeded|failed)$|^waits:parked$/);
    expect((await occurrencesOf(id, s.scheduleId)).map((o) => o.key)).toEqual([`${s.scheduleId}:${due}`]);
    expect((await callsOf(id)).map((c) => c.callId)).toEqual([callId]);
  });
});
