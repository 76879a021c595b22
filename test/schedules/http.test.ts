import { afterEach, describe, expect, it } from "vitest";
import { createThread, eventsOf, inThread, json } from "../helpers.js";
import { setClock } from "./helpers.js";

afterEach(() => setClock(null));

describe("/threads/:id/schedules", () => {
  it("the owner makes, lists and cancels a schedule; events say so", async () => {
    const id = await createThread({ agent: "guarantees" });
    const made = await json("POST", `/threads/${id}/schedules`, { cron: "0 9 * * 1-5", timezone: "Europe/Berlin", target: { tool: "effect_read", input: {} } });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ status: "active", schedule: { cron: "0 9 * * 1-5", timezone: "Europe/Berlin", missed: "once", overlap: "skip", jitterMs: 0 } });
    // The next weekday 09:00 in Berlin (07:00 or 08:00 UTC).
    expect(made.body.nextDueAt).toMatch(/T0[78]:00:00\.000Z$/);
    const list = await json("GET", `/threads/${id}/schedules`);
    expect(list.body.schedules.map((s: { scheduleId: string }) => s.scheduleId)).toEqual([made.body.scheduleId]);
    const cancelled = await json("DELETE", `/threads/${id}/schedules/${made.body.scheduleId}`);
    expect(cancelled).toMatchObject({ status: 200, body: { status: "cancelled", nextDueAt: null } });
    const types = (await eventsOf(id)).map((e) => e.type).filter((t) => t.startsWith("schedule_"));
    expect(types).toEqual(["schedule_created", "schedule_cancelled"]);
  });

  it("another user can neither read, make nor cancel one: 404 as for a thread that is not there, nothing stored", async () => {
    const id = await createThread({ agent: "guarantees" });
    const made = await json("POST", `/threads/${id}/schedules`, { every: "1h", target: { tool: "effect_read" } });
    expect((await json("GET", `/threads/${id}/schedules`, undefined, "bob")).status).toBe(404);
    expect((await json("POST", `/threads/${id}/schedules`, { every: "1h", target: { tool: "effect_read" } }, "bob")).status).toBe(404);
    expect((await json("DELETE", `/threads/${id}/schedules/${made.body.scheduleId}`, undefined, "bob")).status).toBe(404);
    const rows = await inThread(id, (i) => i.schedules.page().schedules);
    expect(rows.map((r: { status: string }) => r.status)).toEqual(["active"]);
  });

  it.each([
    ["a bad cron", { cron: "0 9 * * 8", timezone: "UTC", target: { tool: "effect_read" } }, ["cron"]],
    ["an unknown zone", { cron: "0 9 * * *", timezone: "Europe/Atlantis", target: { tool: "effect_read" } }, ["timezone"]],
    ["a tool the thread does not offer", { every: "1h", target: { tool: "get_weather" } }, ["target", "tool"]],
    ["another agent than the thread's", { every: "1h", target: { agent: "desk", message: "hi" } }, ["target", "agent"]],
    ["a time in the past", { at: "2020-01-01T00:00:00Z", target: { tool: "effect_read" } }, ["at"]],
    ["an interval under the minimum", { every: 1000, target: { tool: "effect_read" } }, ["every"]],
  ])("%s: 400 invalid_schedule with the path, nothing stored", async (_what, body, path) => {
    const id = await createThread({ agent: "guarantees" });
    const res = await json("POST", `/threads/${id}/schedules`, body);
    expect(res).toMatchObject({ status: 400, body: { error: { code: "invalid_schedule", details: { path } } } });
    expect(await inThread(id, (i) => i.schedules.page().schedules)).toEqual([]);
  });

  it("a tool input over a schedule's 64 KiB as stored (escapes counted): 413 payload_too_large with its path, nothing stored", async () => {
    const id = await createThread({ agent: "guarantees" });
    // 40,000 quotes are 80 KB as stored JSON (each one escaped).
    const res = await json("POST", `/threads/${id}/schedules`, { every: "1h", target: { tool: "effect_write", input: { label: '"'.repeat(40_000) } } });
    expect(res).toMatchObject({ status: 413, body: { error: { code: "payload_too_large", details: { path: ["target", "input"], limit: 64 * 1024 } } } });
    expect(await inThread(id, (i) => i.schedules.page().schedules)).toEqual([]);
    expect((await eventsOf(id)).filter((e) => e.type === "schedule_created")).toEqual([]);
    // Within the limit is stored as before.
    expect((await json("POST", `/threads/${id}/schedules`, { every: "1h", target: { tool: "effect_write", input: { label: '"'.repeat(30_000) } } })).status).toBe(201);
  });

  it.each([
    ["a misspelt field", { every: "1h", untill: "2099-01-01T00:00:00Z", target: { tool: "effect_read" } }, ["untill"], /^untill: unknown field; the fields are cron, every, at, timezone, target, missed, overlap, jitterMs and until$/],
    ["a misspelt target field", { every: "1h", target: { agent: "guarantees", mesage: "hi" } }, ["target"], /^target: expected \{ agent, message \} .* or \{ tool, input\? \}/],
  ])("%s: 400 invalid_request naming it and saying what is expected, nothing stored", async (_what, body, path, message) => {
    const id = await createThread({ agent: "guarantees" });
    const res = await json("POST", `/threads/${id}/schedules`, body);
    expect(res).toMatchObject({ status: 400, body: { error: { code: "invalid_request", details: { path } } } });
    expect(res.body.error.message).toMatch(message);
    expect(await inThread(id, (i) => i.schedules.page().schedules)).toEqual([]);
  });

  it("an unknown schedule id: 404 schedule_not_found", async () => {
    const id = await createThread({ agent: "guarantees" });
    expect(await json("DELETE", `/threads/${id}/schedules/sch_nope`)).toMatchObject({ status: 404, body: { error: { code: "schedule_not_found" } } });
  });
});
