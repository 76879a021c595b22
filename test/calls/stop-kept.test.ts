/**
 * A stop is kept with the turn it stops before it is answered true, and reaches only that turn:
 * a DELETE between two turns lets no next turn begin; a stop asked while a turn's messages are
 * admitted is answered once that turn has begun and holds it (a restart before then leaves no
 * answer to break); a stop of messages a hook refuses reaches no later turn; an approval after a
 * stop answered is refused; a turn that cannot resume ends stopped as asked; and a message posted
 * while another is refused gets its turn. Review 23e found each failing.
 */
import { describe, expect, it } from "vitest";
import { callsOf, createThread, effectRuns, eventsOf, inThread, json, messagesOf, stubOf, until } from "../helpers.js";
import { type G, g, holdAdmission, settle, slowDirectWrite } from "./hold.js";

/** A thread whose turn waits for approval of its write `p` (`needs_ok`). */
async function waitingForApproval(): Promise<string> {
  const id = await createThread({ agent: "guarantees" });
  expect((await json("POST", `/threads/${id}/messages`, { content: "pay", script: [{ toolCalls: [{ id: "p", name: "needs_ok", arguments: { amount: 500 } }] }, { text: "paid" }] })).status).toBe(202);
  await until(async () => (await json("GET", `/threads/${id}`)).body.status === "waiting", "the turn to wait");
  return id;
}

/** Stops thread `id`'s waiting turn and restarts the thread as the stopped turn resumes (its flush, real I/O, never ends); the stop's answer. */
async function stopThenRestart(id: string): Promise<unknown> {
  await inThread(id, (t) => {
    t.world.flush = () => new Promise<void>(() => undefined);
  });
  const stopped = (await json("POST", `/threads/${id}/stop`)).body;
  await inThread(id, (t) => t.ctx.abort("crash as the stopped turn resumes")).catch(() => undefined);
  return stopped;
}

/** How thread `id` and its write `p` stand: the thread's status, the call's, and how often the write ran. */
async function stoppedCallAtRest(id: string) {
  return { status: (await json("GET", `/threads/${id}`)).body.status, call: (await callsOf(id)).find((c) => c.callId === "p")?.status, writeRuns: (await effectRuns(id, "p")).runs };
}

describe("DELETE landing between two turns of the loop", () => {
  it("does not let the loop begin the next turn and run its write in the thread being deleted", async () => {
    const id = await createThread({ agent: "deletable" });
    const direct = await slowDirectWrite(id, 1500);
    // Turn 1 completes at once; the loop then recovers calls, waiting on the direct write's lock.
    expect((await json("POST", `/threads/${id}/messages`, { content: "one", script: [{ text: "one done" }] })).body).toMatchObject({ queued: false });
    await settle(id, "completed");
    // A message queued behind it (the loop is still running), whose turn writes.
    const posted = await json("POST", `/threads/${id}/messages`, {
      content: "two",
      script: [{ toolCalls: [{ id: "w", name: "effect_write", arguments: { label: "after the delete" } }] }, { text: "two done" }],
    });
    expect(posted.body).toMatchObject({ queued: true });
    // The owner deletes the thread: "a running turn stops" and nothing new starts.
    const deleted = await json("DELETE", `/threads/${id}`);
    await direct.done;
    expect({ deleted: deleted.status < 300, writeRuns: (await effectRuns(id, "w")).runs }).toEqual({ deleted: true, writeRuns: 0 });
  }, 30_000);
});

describe("a stop answered true while a turn's messages are admitted", () => {
  it("still stops that turn when the thread restarts before it began (the write never runs)", async () => {
    const id = await createThread({ agent: "guarantees" });
    await holdAdmission(id, "__r23e_b", () => true);
    const script = [{ toolCalls: [{ id: "w", name: "effect_write", arguments: { label: "after the stop" } }] }, { text: "done" }];
    const post = json("POST", `/threads/${id}/messages`, { content: "go", script }).catch((e) => e);
    await until(async () => g.__r23e_b?.held === true, "the admission to be held");
    expect((await json("GET", `/threads/${id}`)).body.status).toBe("running");
    // Asked while the admission is held (a slow hook): answered at once, kept with the messages being admitted.
    const stopped = (await json("POST", `/threads/${id}/stop`)).body;
    // A restart (a deploy) before the turn began.
    await inThread(id, (t) => t.ctx.abort("crash before the turn began")).catch(() => undefined);
    await post;
    await until(async () => {
      const info = (await json("GET", `/threads/${id}`)).body;
      return info.status === "idle" && info.lastTurn !== undefined;
    }, "the thread to come to rest", 20_000);
    const info = (await json("GET", `/threads/${id}`)).body;
    expect({ stopped, writeRuns: (await effectRuns(id, "w")).runs, lastTurn: info.lastTurn?.status }).toEqual({ stopped: { stopped: true }, writeRuns: 0, lastTurn: "stopped" });
  }, 30_000);

  it("and a message posted after the stop answered gets a turn of its own after the restart", async () => {
    const id = await createThread({ agent: "guarantees" });
    await holdAdmission(id, "__stop_b2", () => true);
    const post = json("POST", `/threads/${id}/messages`, { content: "one", script: [{ text: "done" }] }).catch((e) => e);
    await until(async () => g.__stop_b2?.held === true, "the admission to be held");
    expect((await json("POST", `/threads/${id}/stop`)).body).toEqual({ stopped: true });
    expect((await json("POST", `/threads/${id}/messages`, { content: "two" })).body).toMatchObject({ queued: true });
    await inThread(id, (t) => t.ctx.abort("crash before the turn began")).catch(() => undefined);
    await post;
    await until(async () => (await json("GET", `/threads/${id}`)).body.lastTurn?.status === "completed", "the second turn to end", 20_000);
    const finished = (await eventsOf(id)).filter((e) => e.type === "turn_finished").map((e) => (e.data as { status: string }).status);
    // "one" began its turn alone, stopped; "two" began the next, which answered.
    expect({ finished, messages: (await messagesOf(id)).map((m) => [m.role, m.content]) }).toEqual({
      finished: ["stopped", "completed"],
      messages: [
        ["user", "one"],
        ["user", "two"],
        ["assistant", "done"],
      ],
    });
  }, 30_000);
});

describe("a stop answered while a queued message a hook refuses is admitted", () => {
  it("does not stop the turn of a message posted after the stop answered", async () => {
    const id = await createThread({ agent: "hooked" });
    // Turn 1 waits for approval; message A (the hook refuses it) queues behind it.
    expect((await json("POST", `/threads/${id}/messages`, { content: "one", script: [{ toolCalls: [{ id: "n", name: "needs_ok", arguments: { amount: 500 } }] }, { text: "one done" }] })).status).toBe(202);
    await until(async () => (await json("GET", `/threads/${id}`)).body.status === "waiting", "turn 1 to wait");
    expect((await json("POST", `/threads/${id}/messages`, { content: "A forbidden-word" })).body).toMatchObject({ queued: true });
    await holdAdmission(id, "__r23e_c", (c) => c.some((x) => x.includes("forbidden-word")));
    expect((await json("POST", `/threads/${id}/calls/n/approve`, {})).status).toBe(200);
    await until(async () => g.__r23e_c?.held === true, "A's admission to be held");
    // The person stops what is about to begin (A's turn), then posts message B.
    const stopped = (await json("POST", `/threads/${id}/stop`)).body;
    const posted = (await json("POST", `/threads/${id}/messages`, { content: "two", script: [{ text: "two done" }] })).body;
    await inThread(id, () => g.__r23e_c.open());
    await stubOf(id).waitIdle();
    const finished = (await eventsOf(id)).filter((e) => e.type === "turn_finished").map((e) => (e.data as { status: string }).status);
    expect({ stopped, posted, finished, last: (await messagesOf(id)).at(-1)?.content }).toEqual({
      stopped,
      posted,
      // turn 1 completed, A's turn failed (refused), B's turn is B's own: completed
      finished: ["completed", "failed", "completed"],
      last: "two done",
    });
  }, 30_000);
});

describe("a stop answered true of a turn waiting for approval, then a restart", () => {
  it("leaves no approval to run: a later approve answers 409 and the write never runs", async () => {
    const id = await waitingForApproval();
    const stopped = await stopThenRestart(id);
    // The watchdog (100 ms here) resumes the turn stopped: the thread comes to rest (on a loaded machine, in seconds).
    await until(async () => (await json("GET", `/threads/${id}`)).body.status === "idle", "the stopped turn to end", 15_000).catch(() => undefined);
    const status = (await json("GET", `/threads/${id}`)).body.status;
    const approve = await json("POST", `/threads/${id}/calls/p/approve`, {});
    await stubOf(id).waitIdle();
    expect({ stopped, status, approve: approve.status, writeRuns: (await effectRuns(id, "p")).runs }).toEqual({ stopped: { stopped: true }, status: "idle", approve: 409, writeRuns: 0 });
  }, 30_000);
});

describe("a stop answered true of a turn waiting for approval, then a restart, with no alarm left", () => {
  it("resumes the turn stopped by the watchdog the stop armed (it stayed waiting: a waiting thread keeps no alarm)", async () => {
    const id = await waitingForApproval();
    // The watchdog that turn armed has fired and, finding it waiting, left no alarm.
    await until(async () => (await inThread(id, (t) => t.ctx.storage.getAlarm())) === null, "the turn's watchdog to fire and go", 10_000);
    const stopped = await stopThenRestart(id);
    await until(async () => (await json("GET", `/threads/${id}`)).body.status === "idle", "the stopped turn to end", 10_000).catch(() => undefined);
    expect({ stopped, ...(await stoppedCallAtRest(id)) }).toEqual({ stopped: { stopped: true }, status: "idle", call: "aborted", writeRuns: 0 });
  }, 30_000);
});

describe("a stop answered true of a turn waiting for approval, then a restart, and its alarm lost", () => {
  it("resumes the turn stopped when the thread next wakes (it stayed waiting until a post or a decision)", async () => {
    const id = await waitingForApproval();
    const stopped = await stopThenRestart(id);
    // The runtime gave up on the alarm (its handler cut by restarts each time): the next wake is a read.
    await inThread(id, (t) => t.ctx.storage.deleteAlarm());
    await until(async () => (await json("GET", `/threads/${id}`)).body.status === "idle", "the stopped turn to end", 10_000).catch(() => undefined);
    expect({ stopped, ...(await stoppedCallAtRest(id)) }).toEqual({ stopped: { stopped: true }, status: "idle", call: "aborted", writeRuns: 0 });
  }, 30_000);
});

describe("an approval landing after a stop answered true, before the stopped turn resumed", () => {
  it("answers 409 call_not_waiting and never runs the write (docs/http.md: a later approve or deny answers 409)", async () => {
    const id = await waitingForApproval();
    // The stopped resume waits on its flush (real I/O: storage sync) a little longer than usual.
    await inThread(id, (t) => {
      const w = t.world;
      const flush = w.flush.bind(w);
      const gate: G = {};
      gate.promise = new Promise<void>((r) => (gate.open = r));
      g.__r23e_d = gate;
      w.flush = async () => {
        w.flush = flush;
        await gate.promise;
        return flush();
      };
    });
    const stopped = (await json("POST", `/threads/${id}/stop`)).body;
    const approve = await json("POST", `/threads/${id}/calls/p/approve`, {});
    await inThread(id, () => g.__r23e_d.open());
    await stubOf(id).waitIdle();
    const finished = (await eventsOf(id)).filter((e) => e.type === "turn_finished").map((e) => (e.data as { status: string }).status);
    expect({ stopped, approve: approve.status, writeRuns: (await effectRuns(id, "p")).runs, finished }).toEqual({ stopped: { stopped: true }, approve: 409, writeRuns: 0, finished: ["stopped"] });
  }, 30_000);
});

describe("a stop of a waiting turn whose agent is no longer deployed", () => {
  it("ends the turn stopped and its waiting call aborted (a later deny answers 409)", async () => {
    const id = await waitingForApproval();
    await inThread(id, (t) => {
      const meta = t.store.meta.read();
      t.store.meta.write({ ...meta, agentId: "gone_agent_probe_23e" });
    });
    await inThread(id, (t) => t.restartForTest()).catch(() => undefined);
    const stopped = (await json("POST", `/threads/${id}/stop`)).body;
    await until(async () => (await json("GET", `/threads/${id}`)).body.status === "idle", "the thread to come to rest", 10_000);
    const info = (await json("GET", `/threads/${id}`)).body;
    const call = (await callsOf(id)).find((c) => c.callId === "p");
    const deny = await json("POST", `/threads/${id}/calls/p/deny`, {});
    expect({ stopped, lastTurn: info.lastTurn?.status, call: call?.status, deny: deny.status }).toEqual({ stopped: { stopped: true }, lastTurn: "stopped", call: "aborted", deny: 409 });
  }, 30_000);
});

describe("a message posted while a refused message is admitted (a free thread)", () => {
  it("gets its turn: the thread does not sit idle with a message in its inbox", async () => {
    const id = await createThread({ agent: "hooked" });
    await holdAdmission(id, "__r23e_f", (c) => c.some((x) => x.includes("forbidden-word")));
    const refused = json("POST", `/threads/${id}/messages`, { content: "A forbidden-word" });
    await until(async () => g.__r23e_f?.held === true, "A's admission to be held");
    const posted = (await json("POST", `/threads/${id}/messages`, { content: "two", script: [{ text: "two done" }] })).body;
    await inThread(id, () => g.__r23e_f.open());
    const first = await refused;
    await new Promise((r) => setTimeout(r, 2000));
    const info = (await json("GET", `/threads/${id}`)).body;
    const inbox = await inThread(id, (t) => t.store.turns.inboxSize() as number);
    expect({ first: first.status, posted, inbox, status: info.status, last: (await messagesOf(id)).at(-1)?.content }).toEqual({ first: first.status, posted, inbox: 0, status: "idle", last: "two done" });
  }, 30_000);
});

describe("a parent's stop of its child's first turn before it began (FirstTurn.stop), then the child restarts", () => {
  it("still stops that first turn: its write never runs", async () => {
    const { OWNER } = await import("../removal-helpers.js");
    const id = await createThread({ agent: "guarantees" });
    await holdAdmission(id, "__r23e_g", () => true);
    const script = [{ toolCalls: [{ id: "w", name: "effect_write", arguments: { label: "after the parent's stop" } }] }, { text: "done" }];
    const post = json("POST", `/threads/${id}/messages`, { content: "the parent's opening", script }).catch((e) => e);
    await until(async () => g.__r23e_g?.held === true, "the opening's admission to be held");
    // What the parent's stop sends its child (src/thread/peers.ts: stop(owner, true)); the child restarts before its first turn began.
    const stopped = await stubOf(id).stop(OWNER, true);
    await inThread(id, (t) => t.ctx.abort("the child restarts")).catch(() => undefined);
    await post;
    await until(async () => {
      const info = (await json("GET", `/threads/${id}`)).body;
      return info.status === "idle" && info.lastTurn !== undefined;
    }, "the child to come to rest", 20_000);
    const info = (await json("GET", `/threads/${id}`)).body;
    expect({ stopped, writeRuns: (await effectRuns(id, "w")).runs, firstTurn: info.lastTurn?.status }).toEqual({ stopped: { ok: true, value: { stopped: true } }, writeRuns: 0, firstTurn: "stopped" });
  }, 30_000);
});

describe("POST /stop while a message's admission (its create-message hooks) takes long", () => {
  it("answers at once: the stop does not wait on an author's hook (review 23f)", async () => {
    const id = await createThread({ agent: "guarantees" });
    await holdAdmission(id, "__stop_h", () => true);
    const post = json("POST", `/threads/${id}/messages`, { content: "go", script: [{ text: "done" }] }).catch((e) => e);
    await until(async () => g.__stop_h?.held === true, "the admission to be held");
    const stop = json("POST", `/threads/${id}/stop`).then((r) => r.body, (e) => e);
    const answered = await Promise.race([stop, new Promise((r) => setTimeout(() => r("no answer after 5 s"), 5000))]);
    await inThread(id, () => g.__stop_h.open());
    await post;
    await stubOf(id).waitIdle();
    expect({ answered, lastTurn: (await json("GET", `/threads/${id}`)).body.lastTurn?.status }).toEqual({ answered: { stopped: true }, lastTurn: "stopped" });
  }, 30_000);
});
