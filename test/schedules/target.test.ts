/**
 * A schedule's target checked when it is made (hostile review): a tool input the tool's schema
 * refuses is a 400 `invalid_tool_input` with its path, never a 201 lost at the first firing; one
 * that fails at a firing all the same (its tool changed since) leaves a failed call record; a
 * name that exists elsewhere in the project is refused for what it is, not as "unknown".
 */
import { afterEach, describe, expect, it } from "vitest";
import { createThread, eventsOf, inThread, json } from "../helpers.js";
import { MINUTE, T0, deliverAlarm, occurrencesOf, setClock } from "./helpers.js";

afterEach(() => setClock(null));

describe("a schedule's target", () => {
  it("a tool input the tool's schema refuses: 400 invalid_tool_input with the path inside target.input, nothing stored", async () => {
    const id = await createThread({ agent: "guarantees" });
    const wrongType = await json("POST", `/threads/${id}/schedules`, { every: "1h", target: { tool: "needs_ok", input: { amount: "five" } } });
    const missing = await json("POST", `/threads/${id}/schedules`, { at: Date.now() + 3_600_000, target: { tool: "needs_ok", input: {} } });
    expect([wrongType.status, wrongType.body.error?.code, wrongType.body.error?.details?.path]).toEqual([400, "invalid_tool_input", ["target", "input", "amount"]]);
    expect([missing.status, missing.body.error?.code, missing.body.error?.details?.path]).toEqual([400, "invalid_tool_input", ["target", "input", "amount"]]);
    expect((await json("GET", `/threads/${id}/schedules`)).body.schedules).toEqual([]);
    expect((await eventsOf(id)).filter((e) => e.type === "schedule_created")).toEqual([]);
  });

  it("an occurrence whose input the tool refuses at its firing (the tool changed since) leaves a failed call record", async () => {
    setClock(T0);
    const id = await createThread({ agent: "guarantees" });
    // Stored as a schedule made before the tool's schema changed: past every check of create.
    const spec = { everyMs: 5 * MINUTE, target: { tool: "needs_ok", input: { amount: "five" } }, missed: "once", overlap: "skip", jitterMs: 0 };
    const s = await inThread(id, (i) => i.schedules.add(i.world, "sch_changed", spec, "tester", T0));
    setClock(T0 + 5 * MINUTE);
    await deliverAlarm(id);
    const [o] = await occurrencesOf(id, s.scheduleId);
    expect(o).toMatchObject({ status: "done", callId: `sched_${s.scheduleId}_${T0 + 5 * MINUTE}` });
    const call = await json("GET", `/threads/${id}/calls/${o!.callId}`);
    expect([call.status, call.body.status, call.body.errorCode]).toEqual([200, "failed", "invalid_tool_input"]);
    const finished = (await eventsOf(id)).find((e) => e.type === "tool_call_finished" && (e.data as { callId: string }).callId === o!.callId);
    expect(finished).toBeDefined();
    // The schedule goes on: the next occurrence is armed.
    expect((await json("GET", `/threads/${id}/schedules`)).body.schedules[0]).toMatchObject({ status: "active", nextDueAt: new Date(T0 + 10 * MINUTE).toISOString() });
  });

  it("another agent's tool or another agent: refused with its reason and path, not as unknown", async () => {
    const id = await createThread({ agent: "guarantees" });
    const tool = await json("POST", `/threads/${id}/schedules`, { every: "1h", target: { tool: "get_weather", input: {} } });
    const agent = await json("POST", `/threads/${id}/schedules`, { every: "1h", target: { agent: "hooked", message: "hi" } });
    const unknown = await json("POST", `/threads/${id}/schedules`, { every: "1h", target: { agent: "nobody_at_all", message: "hi" } });
    expect([tool.status, tool.body.error.code, tool.body.error.details.path]).toEqual([400, "invalid_schedule", ["target", "tool"]]);
    expect(tool.body.error.message).toMatch(/tool "get_weather" is not offered by this thread's agent \("guarantees"\)/);
    expect([agent.status, agent.body.error.code, agent.body.error.details.path]).toEqual([400, "invalid_schedule", ["target", "agent"]]);
    expect(agent.body.error.message).toMatch(/agent "hooked" is not this thread's agent \("guarantees"\)/);
    expect(unknown.body.error.message).toMatch(/unknown agent "nobody_at_all"/);
  });

  it("a remote MCP server's tool its agent offers: refused as a remote tool, not as unknown", async () => {
    const id = await createThread({ agent: "remote_mcp" });
    const res = await json("POST", `/threads/${id}/schedules`, { every: "1h", target: { tool: "remote__lookup", input: { id: "1" } } });
    expect([res.status, res.body.error.code, res.body.error.details.path]).toEqual([400, "invalid_schedule", ["target", "tool"]]);
    expect(res.body.error.message).toMatch(/^tool "remote__lookup" is a tool of the remote MCP server "remote": a schedule's tool target is one of agents\/tools\//);
  });
});
