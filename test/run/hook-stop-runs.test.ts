/**
 * Review 25b: once a stop cut a hook, its `state` refuses what it would write (docs/guarantees.md,
 * docs/prompts-and-agents.md); `state.runs.stop` (it stops another thread's turn) is not refused.
 */
import { describe, expect, it } from "vitest";
import { callsOf, createThread, inThread, json, until } from "../helpers.js";
import { stuck } from "../fixtures/lib/hooked.js";

describe("a hook cut by a stop, going on afterwards", () => {
  it("is refused state.runs.stop like every other write of its state", async () => {
    const id = await createThread({ agent: "review25b" });
    const post = json("POST", `/threads/${id}/messages`, { content: "[rv-gate-after] hello" });
    await until(async () => stuck[id]?.hook === "after_create_message", "the after hook to wait", 20_000);
    expect((await json("POST", `/threads/${id}/stop`)).body).toEqual({ stopped: true });
    await until(async () => (await json("GET", `/threads/${id}`)).body.status === "idle", "the thread to stop", 15_000);
    await post;
    await inThread(id, () => (stuck[id] as { open: () => void }).open());
    await until(async () => (stuck[id] as { late?: string }).late !== undefined, "the late hook to act");
    expect((stuck[id] as { late?: string }).late).toContain("cut short by a stop");
  }, 60_000);
});

describe("a write a stop caught running, when a hook then refuses the step's results (review 25b)", () => {
  it("keeps the effect table's outcome: parked for a person, not aborted", async () => {
    const id = await createThread({ agent: "review25b", arguments: { refuseTools: true } });
    await json("POST", `/threads/${id}/messages`, { content: "go", script: [{ toolCalls: [{ id: "w1", name: "slow_write", arguments: { ms: 4000 } }] }, { text: "done" }] });
    await until(async () => (await callsOf(id)).find((c) => c.callId === "w1")?.status === "started", "the write to run");
    expect((await json("POST", `/threads/${id}/stop`)).body).toEqual({ stopped: true });
    await until(async () => ["stopped", "failed"].includes((await json("GET", `/threads/${id}`)).body.lastTurn?.status), "the turn to end", 15_000);
    expect((await callsOf(id)).find((c) => c.callId === "w1")?.status).toBe("parked");
  }, 60_000);
});
