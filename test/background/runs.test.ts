/**
 * Background runs (src/background/): an agent with `background: true` called as a tool answers at
 * once with a run id, runs detached in its child thread, and its completion reaches the parent
 * exactly once, as a message and a `run_finished` event, through evictions and restarts of either
 * side, a lost word from the child, repeated looks and alarms; the parent may wait for several.
 */
import { evictDurableObject, runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { callsOf, createThread, eventsOf, inThread, json, rawStub, runTurn, until } from "../helpers.js";
import { type Frame, completionMessages, finishedOf } from "./helpers.js";

const runsOf = (id: string) => inThread(id, (i) => i.schedules.runs.list() as { runId: string; status: string; childThreadId: string; answer?: string }[]);

/** A turn of the lead that starts the runs `calls` (tool name per call id) and answers; later turns (one per completion at most) answer "noted". */
async function startRuns(calls: Record<string, string>): Promise<string> {
  const id = await createThread({ agent: "bg_lead" });
  const toolCalls = Object.entries(calls).map(([callId, name]) => ({ id: callId, name, arguments: { input: `question ${callId}` } }));
  await runTurn(id, "research", [{ toolCalls }, { text: "Started." }, { text: "noted" }, { text: "noted" }, { text: "noted" }, { text: "All done." }]);
  return id;
}

describe("background runs", () => {
  it("three detached runs answer at once with their ids; each completion arrives once, as a message and an event, and the last says none is left", async () => {
    const id = await startRuns({ r1: "bg_researcher", r2: "bg_researcher", r3: "bg_researcher" });
    const calls = await callsOf(id);
    for (const callId of ["r1", "r2", "r3"]) {
      const call = calls.find((c) => c.callId === callId)!;
      expect(call.status).toBe("succeeded");
      expect(JSON.parse((call.result as { result: string }).result)).toMatchObject({ runId: `run_${callId}`, agentId: "bg_researcher", status: "running" });
    }
    await until(async () => (await finishedOf(id)).length >= 3, "three run_finished events", 25_000);
    await inThread(id, (i) => i.schedules.runs.collect());
    await runDurableObjectAlarm(rawStub(id));
    const finished = await finishedOf(id);
    expect(finished.map((e) => e.data.runId).sort()).toEqual(["run_r1", "run_r2", "run_r3"]);
    expect(finished.every((e) => e.data.status === "completed")).toBe(true);
    for (const runId of ["run_r1", "run_r2", "run_r3"]) expect(await completionMessages(id, runId)).toHaveLength(1);
    const texts = (await json("GET", `/threads/${id}/messages?limit=1000`)).body.messages.map((m: { content: string }) => m.content) as string[];
    expect(texts.filter((t) => t.includes("no background run is still running"))).toHaveLength(1);
    expect((await runsOf(id)).map((r) => [r.runId, r.status, r.answer])).toEqual(expect.arrayContaining([["run_r1", "completed", "Findings: 42."]]));
    const started = ((await eventsOf(id)) as Frame[]).filter((e) => e.type === "run_started");
    expect(started.map((e) => e.data.callId).sort()).toEqual(["r1", "r2", "r3"]);
  });

  it("evictions of both sides and a restart of the child between start and completion: the completion is delivered exactly once", async () => {
    const id = await startRuns({ p1: "bg_careful" });
    const [run] = await runsOf(id);
    expect(run).toMatchObject({ runId: "run_p1", status: "running" });
    const child = run!.childThreadId;
    await until(async () => (await callsOf(child)).some((c) => c.callId === "pay" && c.status === "awaiting_approval"), "the child's call to wait for approval", 25_000);
    // Looked at while the child waits for a person: nothing is delivered.
    expect(await inThread(id, (i) => i.schedules.runs.collect())).toBe(0);
    await evictDurableObject(rawStub(id));
    await inThread(child, (i) => i.restartForTest()).catch(() => undefined);
    expect((await json("POST", `/threads/${child}/calls/pay/approve`, {})).status).toBe(200);
    await until(async () => (await finishedOf(id)).length >= 1, "run_finished", 25_000);
    // The same completion looked for again: by the alarm, a second word from the child, another look.
    await evictDurableObject(rawStub(id));
    await runDurableObjectAlarm(rawStub(id));
    await Promise.all([inThread(id, (i) => i.schedules.runs.collect()), inThread(id, (i) => i.schedules.runs.collect())]);
    expect((await finishedOf(id)).map((e) => [e.data.runId, e.data.status])).toEqual([["run_p1", "completed"]]);
    expect(await completionMessages(id, "run_p1")).toHaveLength(1);
  });

  it("a child's word lost (its parent unreachable then): the parent's alarm finds the completion and delivers it once", async () => {
    const id = await startRuns({ q1: "bg_careful" });
    const [run] = await runsOf(id);
    const child = run!.childThreadId;
    await until(async () => (await callsOf(child)).some((c) => c.callId === "pay" && c.status === "awaiting_approval"), "the child's call to wait for approval", 25_000);
    // The child will tell a thread that does not exist: its word is lost.
    await inThread(child, (i) => (i.world.meta.parent = { threadId: "0".repeat(64), callId: "q1" }));
    expect((await json("POST", `/threads/${child}/calls/pay/approve`, {})).status).toBe(200);
    await until(async () => (await json("GET", `/threads/${child}`)).body.lastTurn?.status === "completed", "the child's turn to end", 25_000);
    expect(await finishedOf(id)).toEqual([]);
    // RUN_CHECK_MS later (moved to now, through the store, which keeps the next check's time), the parent's one alarm looks.
    await inThread(id, (i) => i.schedules.runs.store.checkAt("run_q1", 0));
    expect(await runDurableObjectAlarm(rawStub(id))).toBe(true);
    await runDurableObjectAlarm(rawStub(id));
    expect((await finishedOf(id)).map((e) => e.data.runId)).toEqual(["run_q1"]);
    expect(await completionMessages(id, "run_q1")).toHaveLength(1);
  });

  it("state.runs: wait for several, stop one (its completion says stopped, once), and an unknown id is run_not_found", async () => {
    const id = await startRuns({ w1: "bg_researcher", w2: "bg_careful" });
    const state = (i: any) => i.world.schedules.runs;
    const waited = await inThread(id, (i) => state(i).wait(["w1", "w2"].map((c) => `run_${c}`), 2_000));
    expect(waited.map((r: { runId: string; status: string }) => [r.runId, r.status])).toEqual([
      ["run_w1", "completed"],
      ["run_w2", "running"],
    ]);
    const child = waited[1].childThreadId as string;
    await until(async () => (await callsOf(child)).some((c) => c.callId === "pay" && c.status === "awaiting_approval"), "the child's call to wait for approval", 25_000);
    await inThread(id, (i) => state(i).stop("run_w2"));
    await until(async () => (await finishedOf(id)).some((e) => e.data.runId === "run_w2"), "the stopped run's completion", 25_000);
    await inThread(id, (i) => state(i).collect());
    expect((await finishedOf(id)).filter((e) => e.data.runId === "run_w2").map((e) => e.data.status)).toEqual(["stopped"]);
    expect(await completionMessages(id, "run_w2")).toHaveLength(1);
    await expect(inThread(id, (i) => state(i).get("run_nope"))).rejects.toMatchObject({ code: "run_not_found" });
  });

  it("a run's threads are its owner's: another user can neither read nor stop its child, nor post to its parent (404, as for no thread), and nothing changes", async () => {
    const id = await startRuns({ o1: "bg_careful" });
    const [run] = await runsOf(id);
    const child = run!.childThreadId;
    await until(async () => (await callsOf(child)).some((c) => c.callId === "pay" && c.status === "awaiting_approval"), "the child's call to wait for approval", 25_000);
    for (const [method, path, body] of [
      ["GET", `/threads/${child}`, undefined],
      ["GET", `/threads/${child}/messages`, undefined],
      ["POST", `/threads/${child}/stop`, {}],
      ["POST", `/threads/${child}/calls/pay/approve`, {}],
      ["POST", `/threads/${id}/messages`, { content: "start more runs" }],
    ] as const) {
      expect([method, path, (await json(method, path, body, "bob")).status]).toEqual([method, path, 404]);
    }
    expect((await callsOf(child)).find((c) => c.callId === "pay")?.status).toBe("awaiting_approval");
    expect((await runsOf(id)).map((r) => [r.runId, r.status])).toEqual([["run_o1", "running"]]);
  });
});
