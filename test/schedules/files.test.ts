/**
 * File schedules after a deploy (src/schedules/deployment.ts, files.ts, adopt.ts): the Worker's
 * cron trigger has the deployment's FileSchedules object take `test/fixtures/schedules/pulse.ts`
 * up in a thread of its own, whose real alarm fires each occurrence once; a deploy that changes
 * or removes the file (the registry edited in place, as a new deployment's would read) ends it.
 */
import { createScheduledController, evictDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { registry } from "../generated/registry.js";
import worker from "../worker.js";
import type { SyncReport } from "../../src/schedules/deployment.js";
import { fileScheduleOf, fileThreadName } from "../../src/schedules/files.js";
import type { ScheduleDefinition } from "../../src/schedules/define.js";
import { eventsOf, inThread, rawStub } from "../helpers.js";
import { MINUTE, T0, alarmOf, deliverAlarm, occurrenceRuns, setClock } from "./helpers.js";

const original = registry.schedules!.pulse!;
afterEach(() => {
  setClock(null);
  registry.schedules!.pulse = original;
});

const vars = env as unknown as { THREAD: DurableObjectNamespace; SCHEDULES: DurableObjectNamespace };
const threadId = vars.THREAD.idFromName(fileThreadName("pulse", "tester")).toString();

/** What the cron trigger runs: the Worker's `scheduled` handler. */
async function cronTick(): Promise<void> {
  await worker.scheduled!(createScheduledController({ cron: "* * * * *" }), env as never);
}

/** The deployment's sync, asked directly for its report. */
function sync(): Promise<SyncReport> {
  const ns = vars.SCHEDULES;
  return (ns.get(ns.idFromName("deployment")) as unknown as { sync(): Promise<SyncReport> }).sync();
}

const schedulesOf = () => inThread(threadId, (i) => i.schedules.page().schedules as { scheduleId: string; status: string; nextDueAt: string | null }[]);

/** Delivers the thread's alarm until it is set for `at` or later (the watchdog's may come first). */
async function settle(at: number): Promise<void> {
  for (let i = 0; i < 5 && ((await alarmOf(threadId)) ?? Infinity) < at; i++) await deliverAlarm(threadId);
}

describe("file schedules run after a deploy with no user action", () => {
  it("the cron trigger takes the file up in its own thread, whose alarm fires each occurrence once, through an eviction and a second sync", async () => {
    setClock(T0);
    await cronTick();
    const current = fileScheduleOf(registry, "pulse")!;
    const mine = (await schedulesOf()).find((s) => s.scheduleId === current.scheduleId)!;
    expect(mine.status).toBe("active");
    const due = Date.parse(mine.nextDueAt!);
    // A second tick, and a sync after an eviction of both objects: nothing new is made.
    expect((await sync()).changed).toBe(false);
    await evictDurableObject(rawStub(threadId));
    expect((await sync()).changed).toBe(false);
    expect((await schedulesOf()).filter((s) => s.status === "active").map((s) => s.scheduleId)).toEqual([current.scheduleId]);
    expect(await alarmOf(threadId)).toBeLessThanOrEqual(due);
    setClock(due);
    await settle(due + 1);
    const runs = () => occurrenceRuns(threadId, current.scheduleId, due);
    expect(await runs()).toEqual({ runs: 1 });
    // The same alarm again, after an eviction: the occurrence is journaled, nothing runs twice.
    await evictDurableObject(rawStub(threadId));
    await inThread(threadId, (i) => i.alarm());
    expect(await runs()).toEqual({ runs: 1 });
    expect(await alarmOf(threadId)).toBe(due + 5 * MINUTE);
    const fired = (await eventsOf(threadId)).filter((e) => e.type === "schedule_fired" && (e.data as { scheduleId: string }).scheduleId === current.scheduleId);
    expect(fired.map((e) => (e.data as { key: string }).key)).toEqual([`${current.scheduleId}:${due}`]);
  });

  it("a deploy that changes the file ends the old version and starts the new one; one that removes it stops it, even before a sync", async () => {
    setClock(T0);
    await cronTick();
    const before = fileScheduleOf(registry, "pulse")!;
    const due = Date.parse((await schedulesOf()).find((s) => s.scheduleId === before.scheduleId)!.nextDueAt!);
    // Changed: every ten minutes.
    registry.schedules!.pulse = { ...original, every: "10m" } as ScheduleDefinition;
    const changed = fileScheduleOf(registry, "pulse")!;
    expect(changed.scheduleId).not.toBe(before.scheduleId);
    const report = await sync();
    expect(report).toMatchObject({ changed: true, failed: [] });
    const rows = await schedulesOf();
    expect(rows.find((s) => s.scheduleId === before.scheduleId)!.status).toBe("done");
    expect(rows.find((s) => s.scheduleId === changed.scheduleId)!.status).toBe("active");
    setClock(due);
    await settle(due + 1);
    expect(await occurrenceRuns(threadId, before.scheduleId, due)).toEqual({ runs: 0 });
    // Removed: the thread's next firing finds the deployment without it and ends it, no sync needed.
    const next = Date.parse((await schedulesOf()).find((s) => s.scheduleId === changed.scheduleId)!.nextDueAt!);
    delete registry.schedules!.pulse;
    setClock(next);
    await deliverAlarm(threadId);
    await settle(next + 1);
    expect(await occurrenceRuns(threadId, changed.scheduleId, next)).toEqual({ runs: 0 });
    expect((await schedulesOf()).filter((s) => s.status === "active")).toEqual([]);
    // The sync after that deploy finds the thread holds nothing; brought back, the file starts again.
    expect((await sync()).failed).toEqual([]);
    registry.schedules!.pulse = original;
    expect((await sync()).schedules).toEqual([`pulse: ${before.scheduleId} active`]);
    const moves = (await eventsOf(threadId))
      .filter((e) => e.type === "schedule_cancelled" || e.type === "schedule_created")
      .map((e) => [e.type, (e.data as { scheduleId?: string; schedule?: { scheduleId: string } }).scheduleId ?? (e.data as { schedule: { scheduleId: string } }).schedule.scheduleId]);
    expect(moves.slice(-4)).toEqual([
      ["schedule_cancelled", before.scheduleId],
      ["schedule_created", changed.scheduleId],
      ["schedule_cancelled", changed.scheduleId],
      ["schedule_created", before.scheduleId],
    ]);
  });
});
