/**
 * `POST /schedules/files/:name/run` (new-user trial: nothing ran a file schedule at once; an author
 * waited for its cron to see its turn): the occurrence runs now in the schedule's thread, through
 * the path a due one takes (journal row, the call under the key's call id, the message for a
 * turn), announced `schedule_fired` with `manual`, and the next cron occurrence stays where it was
 * and still fires. Its owner runs it, an admin one of weft:schedules; anyone else finds no such schedule.
 */
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import type { SyncReport } from "../../src/schedules/deployment.js";
import { type ScheduleDefinition, defineSchedule } from "../../src/schedules/define.js";
import { fileScheduleOf, fileThreadName } from "../../src/schedules/files.js";
import { OCCURRENCES_KEPT } from "../../src/schedules/schedules.js";
import { registry } from "../generated/registry.js";
import { eventsOf, inThread, json, keyed, until } from "../helpers.js";
import { MINUTE, T0, alarmOf, deliverAlarm, occurrenceRuns, occurrencesOf, setClock } from "./helpers.js";

const vars = env as unknown as { THREAD: DurableObjectNamespace; SCHEDULES: DurableObjectNamespace };
const threadOf = (name: string, owner: string) => vars.THREAD.idFromName(fileThreadName(name, owner)).toString();
const sync = () => (vars.SCHEDULES.get(vars.SCHEDULES.idFromName("deployment")) as unknown as { sync(): Promise<SyncReport> }).sync();

// Files as a deploy would add them (the registry edited in place, as files.test.ts does): a write
// of "tester"'s every hour, a turn of weft:schedules' every day, and a write of "tester"'s that
// waits for approval.
const added: Record<string, ScheduleDefinition> = {
  run_now_write: defineSchedule({ every: "1h", target: { tool: "effect_write", input: { label: "now" } }, owner: "tester" }),
  run_now_turn: defineSchedule({ cron: "0 9 * * *", timezone: "UTC", target: { agent: "guarantees", message: "MORNING REPORT" } }),
  run_now_held: defineSchedule({ every: "1h", target: { tool: "needs_ok", input: { amount: 500 } }, owner: "tester" }),
  run_now_loop: defineSchedule({ every: "1h", target: { tool: "needs_ok", input: { amount: 700 } }, owner: "tester" }),
  // Once, ten minutes after T0; and hourly until T0 + 90 min: both end, by the author's word.
  run_now_once: defineSchedule({ at: T0 + 10 * MINUTE, target: { tool: "effect_write", input: { label: "once" } }, owner: "tester" }),
  run_now_until: defineSchedule({ every: "1h", until: T0 + 90 * MINUTE, target: { tool: "effect_write", input: { label: "until" } }, owner: "tester" }),
};
afterEach(async () => {
  for (const name of Object.keys(added)) delete registry.schedules![name];
  // The deployment as the other files expect it: the files added here ended, the registry's version recorded.
  await sync();
  setClock(null);
});
const deploy = () => Object.assign(registry.schedules!, added);

describe("running a file schedule now", () => {
  it("its owner runs a tool target's occurrence at once, twice under two keys; the next hourly occurrence keeps its time and fires", async () => {
    deploy();
    setClock(T0);
    const file = fileScheduleOf(registry, "run_now_write")!;
    const threadId = threadOf("run_now_write", "tester");
    // Before any cron trigger: the run takes the file up first.
    const first = await json("POST", "/schedules/files/run_now_write/run", undefined, "tester");
    expect(first).toEqual({
      status: 200,
      body: { name: "run_now_write", threadId, scheduleId: file.scheduleId, key: `${file.scheduleId}:${T0}`, dueAt: new Date(T0).toISOString(), status: "fired", callId: `sched_${file.scheduleId}_${T0}` },
    });
    expect(await occurrenceRuns(threadId, file.scheduleId, T0)).toEqual({ runs: 1 });
    // Asked again in the same millisecond: an occurrence of its own, its call run once too.
    const second = await json("POST", "/schedules/files/run_now_write/run", undefined, "tester");
    expect(second.body).toMatchObject({ key: `${file.scheduleId}:${T0 + 1}`, status: "fired" });
    expect(await occurrenceRuns(threadId, file.scheduleId, T0 + 1)).toEqual({ runs: 1 });
    const listed = (await json("GET", `/threads/${threadId}/schedules`, undefined, "tester")).body.schedules;
    expect(listed.map((s: { scheduleId: string; nextDueAt: string }) => [s.scheduleId, s.nextDueAt])).toEqual([[file.scheduleId, new Date(T0 + 60 * MINUTE).toISOString()]]);
    const fired = (await eventsOf(threadId)).filter((e) => e.type === "schedule_fired").map((e) => e.data);
    expect(fired).toEqual([
      { scheduleId: file.scheduleId, key: `${file.scheduleId}:${T0}`, dueAt: new Date(T0).toISOString(), callId: `sched_${file.scheduleId}_${T0}`, manual: true },
      { scheduleId: file.scheduleId, key: `${file.scheduleId}:${T0 + 1}`, dueAt: new Date(T0 + 1).toISOString(), callId: `sched_${file.scheduleId}_${T0 + 1}`, manual: true },
    ]);
    // The hourly occurrence comes as it would have: its alarm, its run, once.
    const due = T0 + 60 * MINUTE;
    expect(await alarmOf(threadId)).toBeLessThanOrEqual(due);
    setClock(due);
    for (let i = 0; i < 5 && ((await alarmOf(threadId)) ?? Infinity) <= due; i++) await deliverAlarm(threadId);
    expect(await occurrenceRuns(threadId, file.scheduleId, due)).toEqual({ runs: 1 });
    expect((await occurrencesOf(threadId, file.scheduleId)).map((o) => [o.dueAt, o.status])).toEqual([
      [due, "done"],
      [T0 + 1, "done"],
      [T0, "done"],
    ]);
  });

  it("a repeat under its Idempotency-Key answers the first run and runs nothing more", async () => {
    deploy();
    setClock(T0 + 7);
    const file = fileScheduleOf(registry, "run_now_write")!;
    const threadId = threadOf("run_now_write", "tester");
    const a = await keyed("POST", "/schedules/files/run_now_write/run", "run-once", undefined, "tester");
    const b = await keyed("POST", "/schedules/files/run_now_write/run", "run-once", undefined, "tester");
    expect(b).toEqual(a);
    expect(a.body.key).toBe(`${file.scheduleId}:${T0 + 7}`);
    expect((await occurrencesOf(threadId, file.scheduleId)).filter((o) => o.dueAt >= T0 + 7 && o.dueAt < T0 + MINUTE)).toHaveLength(1);
  });

  it("an admin runs a turn's occurrence of weft:schedules: the message reaches its thread for a turn, the daily one stays", async () => {
    deploy();
    setClock(T0);
    const file = fileScheduleOf(registry, "run_now_turn")!;
    const threadId = threadOf("run_now_turn", "weft:schedules");
    const ran = await json("POST", "/schedules/files/run_now_turn/run", undefined, "root");
    expect(ran).toEqual({ status: 200, body: { name: "run_now_turn", threadId, scheduleId: file.scheduleId, key: `${file.scheduleId}:${T0}`, dueAt: new Date(T0).toISOString(), status: "fired" } });
    const messages = async () => (await json("GET", `/threads/${threadId}/messages?limit=100`, undefined, "root")).body.messages as { role: string; content: string }[];
    await until(async () => (await messages()).length >= 2, "the scheduled turn's answer");
    expect((await messages())[0]).toMatchObject({ role: "user", content: "MORNING REPORT" });
    const next = (await json("GET", `/threads/${threadId}/schedules`, undefined, "root")).body.schedules[0].nextDueAt;
    expect(next).toBe(new Date(T0 + 9 * 60 * MINUTE).toISOString());
  });

  it("the overlap rule applies: a second run while the first one's call waits for approval is skipped; a cancelled schedule no longer runs", async () => {
    deploy();
    setClock(T0 + 20);
    const file = fileScheduleOf(registry, "run_now_held")!;
    const threadId = threadOf("run_now_held", "tester");
    const first = await json("POST", "/schedules/files/run_now_held/run", undefined, "tester");
    expect(first.body).toMatchObject({ status: "fired", callId: `sched_${file.scheduleId}_${T0 + 20}` });
    expect((await json("GET", `/threads/${threadId}/calls/${first.body.callId}`, undefined, "tester")).body.status).toBe("awaiting_approval");
    const second = await json("POST", "/schedules/files/run_now_held/run", undefined, "tester");
    expect(second.body).toEqual({ name: "run_now_held", threadId, scheduleId: file.scheduleId, key: `${file.scheduleId}:${T0 + 21}`, dueAt: new Date(T0 + 21).toISOString(), status: "skipped", reason: "overlap" });
    const skipped = (await eventsOf(threadId)).filter((e) => e.type === "schedule_skipped").map((e) => e.data);
    expect(skipped).toEqual([{ scheduleId: file.scheduleId, reason: "overlap", count: 1, dueAt: new Date(T0 + 21).toISOString() }]);
    expect((await json("DELETE", `/threads/${threadId}/schedules/${file.scheduleId}`, undefined, "tester")).status).toBe(200);
    const cancelled = await json("POST", "/schedules/files/run_now_held/run", undefined, "tester");
    expect([cancelled.status, cancelled.body.error.code]).toEqual([404, "schedule_not_found"]);
    // Says why, so an operator who cancelled a misbehaving one does not look for a typo in its name.
    expect(cancelled.body.error).toMatchObject({ message: expect.stringContaining("is cancelled"), details: { scheduleId: file.scheduleId, status: "cancelled" } });
  });

  it("runs asked for in a loop keep the schedule's journal to its last OCCURRENCES_KEPT occurrences, as its alarm's firings do; the one waiting stays", async () => {
    deploy();
    setClock(T0 + 30);
    const file = fileScheduleOf(registry, "run_now_loop")!;
    const threadId = threadOf("run_now_loop", "tester");
    const first = await json("POST", "/schedules/files/run_now_loop/run", undefined, "tester");
    expect(first.body).toMatchObject({ status: "fired" });
    // Each later one is skipped (the first waits for approval) and journaled: a row each, in the thread's own object.
    const tester = { userId: "tester", name: "tester", roles: [], admin: false };
    const statuses = await inThread(threadId, async (i) => {
      const seen = new Set<string>();
      for (let n = 0; n < OCCURRENCES_KEPT + 20; n++) {
        const ran = await i.runSchedule(tester, file.scheduleId);
        seen.add(ran.ok ? ran.value.status : ran.error.code);
      }
      return [...seen];
    });
    expect(statuses).toEqual(["skipped"]);
    const journal = await inThread(threadId, (i) => i.schedules.store.occurrences(file.scheduleId, 10 * OCCURRENCES_KEPT) as { key: string; status: string }[]);
    expect(journal.length).toBeLessThanOrEqual(OCCURRENCES_KEPT + 1);
    expect(journal.find((o) => o.key === first.body.key)?.status).toBe("started");
  });

  it("a schedule that ended (its one `at` occurrence ran, or its `until` passed) runs no more: 404 schedule_not_found, nothing journaled", async () => {
    deploy();
    setClock(T0);
    await sync();
    for (const [name, end] of [["run_now_once", T0 + 10 * MINUTE], ["run_now_until", T0 + 90 * MINUTE]] as const) {
      const file = fileScheduleOf(registry, name)!;
      const threadId = threadOf(name, "tester");
      setClock(end + MINUTE);
      for (let i = 0; i < 5 && ((await alarmOf(threadId)) ?? Infinity) <= end + MINUTE; i++) await deliverAlarm(threadId);
      const listed = (await json("GET", `/threads/${threadId}/schedules`, undefined, "tester")).body.schedules;
      expect(listed.map((s: { status: string }) => s.status)).toEqual(["done"]);
      const before = (await occurrencesOf(threadId, file.scheduleId)).length;
      const ran = await json("POST", `/schedules/files/${name}/run`, undefined, "tester");
      expect([ran.status, ran.body.error?.code]).toEqual([404, "schedule_not_found"]);
      expect(await occurrencesOf(threadId, file.scheduleId)).toHaveLength(before);
    }
  });

  it("an unknown name, another user's file schedule and, for an admin, a user's own answer 404 schedule_not_found naming it; nothing runs", async () => {
    deploy();
    setClock(T0 + 13);
    const unknown = await json("POST", "/schedules/files/no_such_file/run", undefined, "tester");
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ code: "schedule_not_found", details: { name: "no_such_file", path: ["name"] } });
    expect(unknown.body.error.message).toContain("details.name");
    for (const [name, as] of [["run_now_turn", "tester"], ["run_now_write", "alice"], ["run_now_write", "root"]] as const) {
      const refused = await json("POST", `/schedules/files/${name}/run`, undefined, as);
      expect([refused.status, refused.body.error.code, refused.body.error.details]).toEqual([404, "schedule_not_found", { name, path: ["name"] }]);
    }
    // The refusals reached no thread: no occurrence was journaled at their time.
    const file = fileScheduleOf(registry, "run_now_write")!;
    expect((await occurrencesOf(threadOf("run_now_write", "tester"), file.scheduleId)).filter((o) => o.dueAt === T0 + 13)).toEqual([]);
  });

  it("a name of 20 000 characters answers 404 schedule_not_found naming it once, cut", async () => {
    deploy();
    const name = "x".repeat(20_000);
    const refused = await json("POST", `/schedules/files/${name}/run`, undefined, "tester");
    expect([refused.status, refused.body.error.code, refused.body.error.details.path]).toEqual([404, "schedule_not_found", ["name"]]);
    const shown = JSON.stringify(refused.body);
    expect(shown.length).toBeLessThan(600);
    expect(shown.match(/x{20,}/g)).toHaveLength(1);
  });
});
