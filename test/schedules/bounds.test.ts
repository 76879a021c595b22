/**
 * The bounds of a schedule's times and of its listing (hostile review): a time past what a `Date`
 * holds or a date the calendar lacks is a 400 with its path, never a 500 nor a rolled-over date;
 * the list answers in cursor pages bounded in bytes however large the schedules' inputs are.
 */
import { describe, expect, it } from "vitest";
import { inThread, request } from "../helpers.js";
import { freshUser, send } from "../usage/users.js";

const refusal = (r: { status: number; body: any }) => [r.status, r.body.error?.code, r.body.error?.details?.path];

describe("a schedule's times", () => {
  it("an `at` or `every` past the Date range is 400 with its path, and the thread's schedules stay readable", async () => {
    const u = await freshUser("sched-bounds-far");
    const id = (await send(u.token, "POST", "/threads", { agent: "guarantees" })).body.threadId as string;
    const at = await send(u.token, "POST", `/threads/${id}/schedules`, { at: 9_007_199_254_740_991, target: { tool: "effect_read", input: {} } });
    const every = await send(u.token, "POST", `/threads/${id}/schedules`, { every: 9_000_000_000_000_000, target: { tool: "effect_read", input: {} } });
    const until = await send(u.token, "POST", `/threads/${id}/schedules`, { every: "1h", until: "+275760-09-13T00:00:00Z", target: { tool: "effect_read", input: {} } });
    expect([refusal(at), refusal(every), refusal(until)]).toEqual([
      [400, "invalid_schedule", ["at"]],
      [400, "invalid_schedule", ["every"]],
      [400, "invalid_schedule", ["until"]],
    ]);
    const list = await send(u.token, "GET", `/threads/${id}/schedules`);
    const turn = await send(u.token, "POST", `/threads/${id}/messages`, { content: "hi", script: [{ text: "hello" }] });
    expect([list.status, list.body.schedules, turn.status]).toEqual([200, [], 202]);
  });

  it("a row stored out of the Date range (before the check) still lists", async () => {
    const u = await freshUser("sched-bounds-row");
    const id = (await send(u.token, "POST", "/threads", { agent: "guarantees" })).body.threadId as string;
    const spec = { at: 9_007_199_254_740_991, target: { tool: "effect_read", input: {} }, missed: "once", overlap: "skip", jitterMs: 0 };
    await inThread(id, (i) => i.schedules.store.insert({ id: "sch_far", spec, owner: u.userId, status: "active", anchor: 0, nextDue: spec.at, fireAt: spec.at, createdAt: Date.now() }));
    const list = await send(u.token, "GET", `/threads/${id}/schedules`);
    expect([list.status, list.body.schedules.map((s: { scheduleId: string }) => s.scheduleId)]).toEqual([200, ["sch_far"]]);
  });

  it("February 30 (or April 31) in `at`, `until` or a cron is refused with its path, never rolled into March", async () => {
    const u = await freshUser("sched-bounds-feb");
    const id = (await send(u.token, "POST", "/threads", { agent: "guarantees" })).body.threadId as string;
    const target = { tool: "effect_read", input: {} };
    const at = await send(u.token, "POST", `/threads/${id}/schedules`, { at: "2031-02-30T09:00:00Z", target });
    const until = await send(u.token, "POST", `/threads/${id}/schedules`, { every: "1h", until: "2031-04-31T00:00:00+02:00", target });
    const cron = await send(u.token, "POST", `/threads/${id}/schedules`, { cron: "0 9 30 2 *", timezone: "UTC", target });
    const cronOr = await send(u.token, "POST", `/threads/${id}/schedules`, { cron: "0 9 31 feb,apr 1", timezone: "UTC", target });
    expect([refusal(at), refusal(until), refusal(cron), refusal(cronOr)]).toEqual([
      [400, "invalid_schedule", ["at"]],
      [400, "invalid_schedule", ["until"]],
      [400, "invalid_schedule", ["cron"]],
      [400, "invalid_schedule", ["cron"]],
    ]);
    expect(at.body.error.message).toMatch(/2031-02 has no day 30/);
    expect(cron.body.error.message).toMatch(/day-of-month 30 never falls in feb/);
    // February 29 exists in a leap year, and a real last day passes.
    expect((await send(u.token, "POST", `/threads/${id}/schedules`, { cron: "0 9 29 2 *", timezone: "UTC", target })).status).toBe(201);
    expect((await send(u.token, "POST", `/threads/${id}/schedules`, { at: "2032-02-29T09:00:00Z", target })).status).toBe(201);
  });
});

describe("the size of a schedule list", () => {
  it("pages stay within 1 MiB however large each schedule's input, and the cursor reaches every schedule once", async () => {
    const user = await freshUser("sched-bounds-size");
    const id = (await send(user.token, "POST", "/threads", { agent: "guarantees" })).body.threadId as string;
    // An input over a schedule's 64 KiB is refused (it was 201 up to 1 MiB, and 12 of them made a 12 MB list).
    const huge = await send(user.token, "POST", `/threads/${id}/schedules`, { every: "1d", target: { tool: "effect_read", input: { label: "x".repeat(1_000_000) } } });
    expect(refusal(huge)).toEqual([413, "payload_too_large", ["target", "input"]]);
    const label = "x".repeat(64 * 1024 - 100);
    const made: string[] = [];
    for (let n = 0; n < 40; n++) {
      const res = await send(user.token, "POST", `/threads/${id}/schedules`, { every: "1d", target: { tool: "effect_read", input: { label } } });
      expect(res.status).toBe(201);
      made.push(res.body.scheduleId);
    }
    const seen: string[] = [];
    let pages = 0;
    for (let cursor: string | null = null; pages === 0 || cursor; pages++) {
      const res = await request(`/threads/${id}/schedules${cursor ? `?cursor=${cursor}` : ""}`, { headers: { authorization: `Bearer ${user.token}` } }, null);
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(new TextEncoder().encode(text).byteLength).toBeLessThanOrEqual(1024 * 1024 + 1024);
      const page = JSON.parse(text) as { schedules: { scheduleId: string }[]; nextCursor: string | null };
      seen.push(...page.schedules.map((s) => s.scheduleId));
      cursor = page.nextCursor;
    }
    expect(seen).toEqual(made);
    expect(pages).toBeGreaterThanOrEqual(3);
    const small = await send(user.token, "GET", `/threads/${id}/schedules?limit=2`);
    expect([small.body.schedules.length, small.body.nextCursor]).toEqual([2, made[1]]);
    expect(refusal(await send(user.token, "GET", `/threads/${id}/schedules?limit=0`))).toEqual([400, "invalid_request", ["limit"]]);
    expect(refusal(await send(user.token, "GET", `/threads/${id}/schedules?cursor=sch_nope`))).toEqual([400, "invalid_request", ["cursor"]]);
  });
});
