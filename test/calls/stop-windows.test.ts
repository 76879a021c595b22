/**
 * Stops that land where the runner holds no execution: while a restarted thread recovers its cut
 * turn (the stop is kept with the turn, so a second restart does not lose it), and between two
 * turns of the loop (nothing runs to stop: a turn that begins after is not the stop's). Reviews
 * 23c and 23d found the first ignored, then lost on a restart, and the second stopping a turn for
 * a message posted after the stop answered.
 */
import { describe, expect, it } from "vitest";
import { callsOf, createThread, effectRuns, eventsOf, inThread, json, messagesOf, stubOf, until } from "../helpers.js";
import { settle, slowDirectWrite } from "./hold.js";

/** A thread whose turn (a 3 s read, then a write) was cut by a restart inside the read: the read is recovered (run again) as the thread comes back. */
async function cutInsideSlowRead(): Promise<string> {
    const id = await createThread({ agent: "guarantees" });
    const script = [
      { toolCalls: [{ id: "s", name: "slow_read", arguments: { ms: 3000 } }] },
      { toolCalls: [{ id: "w", name: "effect_write", arguments: { label: "after the stop" } }] },
      { text: "done" },
    ];
    expect((await json("POST", `/threads/${id}/messages`, { content: "go", script })).status).toBe(202);
    await until(async () => (await callsOf(id)).find((c) => c.callId === "s")?.status === "started", "the slow read to run");
    await inThread(id, (t) => t.ctx.abort("crash inside the slow read")).catch(() => undefined);
  return id;
}

describe("a stop landing while a restarted thread recovers its cut turn", () => {
  it("stops that turn: the write of its next step never runs", async () => {
    const id = await cutInsideSlowRead();
    // The thread says it is running (the cut turn resumes at once), and the person stops it.
    expect((await json("GET", `/threads/${id}`)).body.status).toBe("running");
    const stopped = await json("POST", `/threads/${id}/stop`);
    await until(async () => (await json("GET", `/threads/${id}`)).body.status === "idle", "the thread to come to rest", 20_000);
    const info = (await json("GET", `/threads/${id}`)).body;
    expect({ stop: stopped.body, writeRuns: (await effectRuns(id, "w")).runs, lastTurn: info.lastTurn?.status }).toEqual({ stop: { stopped: true }, writeRuns: 0, lastTurn: "stopped" });
    // The read's one result: what its recovery got (the stop came during it), or aborted; the write never had a call.
    const calls = await callsOf(id);
    expect(calls.map((c) => c.callId)).toEqual(["s"]);
    expect(["succeeded", "aborted"]).toContain(calls[0]!.status);
  }, 30_000);

  it("still stops that turn when the thread restarts again before the turn resumed", async () => {
    const id = await cutInsideSlowRead();
    // The thread comes back and recovers the read (run again, three seconds); the person stops it.
    expect((await json("GET", `/threads/${id}`)).body.status).toBe("running");
    const stopped = (await json("POST", `/threads/${id}/stop`)).body;
    // The thread restarts again before the recovery ended.
    await inThread(id, (t) => t.ctx.abort("crash while recovering")).catch(() => undefined);
    await until(async () => (await json("GET", `/threads/${id}`)).body.status === "idle", "the thread to come to rest", 30_000);
    const info = (await json("GET", `/threads/${id}`)).body;
    expect({ stopped, writeRuns: (await effectRuns(id, "w")).runs, lastTurn: info.lastTurn?.status }).toEqual({ stopped: { stopped: true }, writeRuns: 0, lastTurn: "stopped" });
  }, 45_000);
});

describe("a stop landing between two turns of the loop", () => {
  it("does not stop the turn of a message posted after the stop answered", async () => {
    const id = await createThread({ agent: "deletable" });
    const direct = await slowDirectWrite(id, 8000);
    // Turn 1 completes at once; the loop then recovers calls, waiting on the direct write's lock.
    expect((await json("POST", `/threads/${id}/messages`, { content: "one", script: [{ text: "one done" }] })).body).toMatchObject({ queued: false });
    await settle(id, "completed");
    // Turn 1 is over; the thread says running (its loop goes on), so the person stops it.
    expect((await json("GET", `/threads/${id}`)).body.status).toBe("running");
    const stopped = (await json("POST", `/threads/${id}/stop`)).body;
    // After the stop answered, the person posts a new message.
    const posted = (await json("POST", `/threads/${id}/messages`, { content: "two", script: [{ text: "two done" }] })).body;
    await direct.done;
    await stubOf(id).waitIdle();
    const finished = (await eventsOf(id)).filter((e) => e.type === "turn_finished").map((e) => (e.data as { status: string; error?: string }));
    expect({ stopped, posted, finished, last: (await messagesOf(id)).at(-1)?.content }).toEqual({
      stopped,
      posted,
      finished: [expect.objectContaining({ status: "completed" }), expect.objectContaining({ status: "completed" })],
      last: "two done",
    });
  }, 30_000);

  it("a repeated stop (a client's retry) does not stop the turn of a message queued behind the stopped one", async () => {
    const id = await createThread({ agent: "deletable" });
    const direct = await slowDirectWrite(id, 8000);
    // Turn 1 waits for approval; message 2 will queue behind it.
    expect((await json("POST", `/threads/${id}/messages`, { content: "one", script: [{ toolCalls: [{ id: "a1", name: "slow_write", arguments: { ask: true } }] }] })).status).toBe(202);
    await until(async () => (await json("GET", `/threads/${id}`)).body.status === "waiting", "turn 1 to wait");
    // The first stop ends turn 1; the loop then waits on the direct write's lock in recover().
    expect((await json("POST", `/threads/${id}/stop`)).body).toEqual({ stopped: true });
    await settle(id, "stopped");
    // The same stop again (a retry whose first answer was lost), then a new message.
    const again = (await json("POST", `/threads/${id}/stop`)).body;
    const posted = (await json("POST", `/threads/${id}/messages`, { content: "two", script: [{ text: "two done" }] })).body;
    await direct.done;
    await stubOf(id).waitIdle();
    const finished = (await eventsOf(id)).filter((e) => e.type === "turn_finished").map((e) => (e.data as { status: string }).status);
    expect({ again, posted, finished, last: (await messagesOf(id)).at(-1)?.content }).toEqual({
      again,
      posted,
      finished: ["stopped", "completed"],
      last: "two done",
    });
  }, 30_000);
});
