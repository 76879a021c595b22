/**
 * `state.runs.stop` called by a tool inside a turn (where tools run): it stops the run's child and
 * answers, instead of waiting for the turn that waits on it to end.
 */
import { describe, expect, it } from "vitest";
import { callsOf, createThread, inThread, runTurn, until } from "../helpers.js";
import { completionMessages, finishedOf } from "./helpers.js";

describe("state.runs.stop inside a turn", () => {
  it("answers without waiting for its own turn to end (it waited on itself until its timeout), and the completion comes once after the turn", async () => {
    const id = await createThread({ agent: "bg_lead" });
    await runTurn(id, "pay, then stop it", [
      { toolCalls: [{ id: "c1", name: "bg_careful", arguments: { input: "pay" } }] },
      { toolCalls: [{ id: "s1", name: "stop_run", arguments: { runId: "run_c1" } }] },
      { text: "Stopped." },
      { text: "noted" },
    ]);
    const stop = (await callsOf(id)).find((c) => c.callId === "s1")!;
    expect([stop.status, stop.result]).toEqual(["succeeded", expect.objectContaining({ status: "success", result: "stopped" })]);
    // Its completion still comes after the turn, once.
    await until(async () => (await finishedOf(id)).length >= 1, "the stopped run's completion", 25_000);
    await inThread(id, (i) => i.schedules.runs.collect());
    expect((await finishedOf(id)).map((e) => [e.data.runId, e.data.status])).toEqual([["run_c1", "stopped"]]);
    expect(await completionMessages(id, "run_c1")).toHaveLength(1);
  });
});
