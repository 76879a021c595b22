/**
 * Recovery runs each effect once however many requests meet a crashed thread at once. npm test plays
 * each effect class and each crash point once; `npm run crash-matrix` plays every class at every point.
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { CLASSES, type EffectClass, POINTS, callsWithoutOneResult, crashAt, expected, settleParked, waitAtRest } from "../crash/matrix.js";
import { firedCrashes, planCrashes } from "../crash/plan.js";
import { crossOrSample } from "../crash/scale.js";
import { callsOf, createThread, eventsOf, inThread, json, keyed, effectRuns, messagesOf, rawStub, stubOf, until } from "../helpers.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Runs the thread's alarm handler now, answering like a request: 200, or 503 when an injected
 * crash cut it (the Worker answers a request cut that way); any other failure stays a failure.
 */
function alarm(id: string): Promise<{ status: number; body: unknown }> {
  return runDurableObjectAlarm(rawStub(id)).then(
    () => ({ status: 200, body: null }),
    (e: Error) => {
      if (!/injected crash/.test(String(e))) throw e;
      return { status: 503, body: String(e) };
    },
  );
}

function validHistory(messages: Array<{ role: string; toolCallId?: string; toolCalls?: Array<{ id: string }> }>): boolean {
  const asked = messages.flatMap((m) => m.toolCalls?.map((c) => c.id) ?? []).sort();
  const answered = messages.filter((m) => m.role === "tool").map((m) => m.toolCallId).sort();
  return JSON.stringify(asked) === JSON.stringify(answered);
}

describe("recovery runs once: effect classes x crash points, with many requests at once", () => {
  // Every class at every point under `npm run crash-matrix`; npm test plays each class and each point once.
  const cases = crossOrSample(Object.keys(CLASSES) as EffectClass[], POINTS.filter((p) => p !== "queue_drain"));
  it.concurrent.each(cases)("4. %s cut at %s, then every kind of request at the same moment: each effect runs once", async (cls, point) => {
    const id = await createThread({ agent: "guarantees" });
    planCrashes(id, point === "second_crash" ? [{ point: "after_effect", callId: "r" }, { point: "recovering", callId: "r" }] : [{ point, callId: "r" }]);
    await json("POST", `/threads/${id}/messages`, {
      content: "go",
      script: [
        {
          toolCalls: [
            { id: "p1", name: "needs_ok", arguments: { amount: 500 } },
            { id: "p2", name: "needs_ok", arguments: { amount: 600 } },
            { id: "r", name: CLASSES[cls], arguments: {} },
          ],
        },
        { text: "done" },
      ],
    }).catch(() => undefined);
    await until(async () => firedCrashes(id).length > 0, "the crash");
    // Every kind of request at the same moment, on the thread the crash left behind (and, for
    // second_crash, cut again as recovery starts).
    const later = () => keyed("POST", `/threads/${id}/messages`, `later-${id}`, { content: "and then?", script: [{ text: "later" }] });
    const answers = await Promise.all([
      json("POST", `/threads/${id}/calls/p1/approve`, {}),
      json("POST", `/threads/${id}/calls/p2/deny`, { reason: "no" }),
      json("POST", `/threads/${id}/calls/p1/approve`, {}),
      json("GET", `/threads/${id}`),
      json("GET", `/threads/${id}/calls`),
      later(),
      alarm(id),
      alarm(id),
      json("POST", "/v1/tools/effect_read", { input: {}, sessionId: id }),
      json("POST", `/threads/${id}/calls/p2/deny`, {}),
    ]).catch((e: Error) => [{ status: 599, body: e.message }]);
    // A request the planned second crash cut answers 503 thread_restarted (an alarm it cut, that
    // crash's error); nothing else may be 5xx.
    for (const a of answers) if (a.status >= 500) expect(a.status === 503 && point === "second_crash", JSON.stringify(a)).toBe(true);
    // A client told its post was cut retries it with the same key, as the 503 says to.
    for (let retry = 0; retry < 20 && answers[5]!.status === 503; retry++) answers[5] = await later();
    expect(answers[5]!.status).toBe(202);
    // Whatever still waits is decided, as a person would: p1 approved, p2 denied, a parked call settled.
    for (let round = 0; round < 40; round++) {
      expect(await waitAtRest(id)).toBeNull();
      const calls = await callsOf(id);
      if (calls.find((c) => c.callId === "p1")?.status === "awaiting_approval") await json("POST", `/threads/${id}/calls/p1/approve`, {});
      if (calls.find((c) => c.callId === "p2")?.status === "awaiting_approval") await json("POST", `/threads/${id}/calls/p2/deny`, {});
      if (calls.some((c) => c.status === "parked")) {
        const settled = await Promise.all([settleParked(id), settleParked(id)]);
        expect(settled.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
      }
      await stubOf(id).waitIdle();
      if ((await messagesOf(id)).at(-1)?.content === "later") break;
      await sleep(20);
    }
    expect((await messagesOf(id)).at(-1)?.content).toBe("later");
    expect((await messagesOf(id)).filter((m) => m.content === "and then?")).toHaveLength(1);
    const want = expected(cls, point, "model");
    expect((await effectRuns(id, "r")).runs, `${want.outcome}`).toBe(want.runs);
    expect((await effectRuns(id, "p1")).runs).toBe(1);
    expect(await callsWithoutOneResult(id)).toEqual([]);
    const calls = await callsOf(id);
    expect(calls.filter((c) => ["p1", "p2"].includes(c.callId)).map((c) => `${c.callId}:${c.status}`)).toEqual(["p1:succeeded", "p2:denied"]);
    const events = await eventsOf(id);
    expect(events.filter((e) => e.type === "tool_call_started" && (e.data as { callId: string }).callId === "r").length).toBeLessThanOrEqual(Math.max(1, want.runs));
    expect(validHistory(await messagesOf(id))).toBe(true);
  }, 120_000);
});

describe("a turn resumes once however many resumptions arrive together", () => {
  it("4. four resumptions at once of a turn whose approval outlived a crash: one resumed turn, one model step", async () => {
    const id = await createThread({ agent: "guarantees" });
    await json("POST", `/threads/${id}/messages`, { content: "pay", script: [{ toolCalls: [{ id: "pay", name: "needs_ok", arguments: { amount: 500 } }] }, { text: "done" }, { text: "spare" }] });
    await stubOf(id).waitIdle();
    await crashAt(id, "pay", "before_journal");
    expect((await json("POST", `/threads/${id}/calls/pay/approve`, {})).status).toBe(503);
    // The thread comes back with the approval durable and the call not begun. Requests, alarms and
    // decisions all resume it: four in one tick, before the watchdog does. Looking whether the turn
    // still waits may take a while (a sub-agent's thread is asked); here it takes 20 ms.
    await inThread(id, async (instance) => {
      const runner = instance.runner;
      const look = runner.stillWaiting;
      runner.stillWaiting = async (...args: unknown[]) => {
        await sleep(20);
        return look.apply(runner, args);
      };
      try {
        await Promise.all([1, 2, 3, 4].map(() => runner.resume()));
      } finally {
        delete runner.stillWaiting;
      }
    });
    expect(await waitAtRest(id)).toBeNull();
    const events = await eventsOf(id);
    const count = (type: string) => events.filter((e) => e.type === type).length;
    expect([count("turn_started"), count("model_step"), count("turn_finished")]).toEqual([2, 2, 1]);
    expect((await messagesOf(id)).map((m) => `${m.role}:${m.role === "tool" ? m.toolCallId : m.content}`)).toEqual(["user:pay", "assistant:", "tool:pay", "assistant:done"]);
    expect((await effectRuns(id, "pay")).runs).toBe(1);
  });
});

describe("a crash loop ends", () => {
  it("13. a read whose every run restarts its thread ends aborted after 3 runs, and the turn goes on", async () => {
    const id = await createThread({ agent: "robustness" });
    await json("POST", `/threads/${id}/messages`, { content: "go", script: [{ toolCalls: [{ id: "loop", name: "crash_loop_read", arguments: {} }] }, { text: "done" }] });
    for (let run = 1; run <= 3; run++) {
      await until(async () => (await effectRuns(id, "loop")).runs >= run, `run ${run}`);
      await inThread(id, (instance) => instance.ctx.abort(`crash during run ${run}`)).catch(() => undefined);
      // The alarm resumes the thread; it is not awaited, since a re-run hangs until the next crash.
      void runDurableObjectAlarm(rawStub(id)).catch(() => undefined);
    }
    await until(async () => (await callsOf(id))[0]?.status === "aborted", "the call to end");
    await stubOf(id).waitIdle();
    const [call] = await callsOf(id);
    expect(call).toMatchObject({ status: "aborted", restarts: 3, outcome: "unknown" });
    expect(call!.result!.error).toMatch(/^aborted: the thread restarted during each of 3 runs of this call/);
    expect((await effectRuns(id, "loop")).runs).toBe(3);
    await until(async () => (await messagesOf(id)).at(-1)?.content === "done", "the turn to finish");
    expect((await json("GET", `/threads/${id}`)).body).toMatchObject({ status: "idle", lastTurn: { status: "completed" } });
  });
});

describe("a turn cut by a restart keeps the thread busy until it resumes", () => {
  it("14. a message posted after a crash queues behind the resumption, which happens at once", async () => {
    const id = await createThread({ agent: "guarantees" });
    // The resumed turn takes a while (a 500 ms read in its second step), so the post below meets it still running.
    const slow = { toolCalls: [{ id: "s", name: "slow_read", arguments: { ms: 500 } }] };
    await json("POST", `/threads/${id}/messages`, { content: "first", script: [{ toolCalls: [{ id: "h", name: "effect_read", arguments: { hang: true } }] }, slow, { text: "done" }] });
    await until(async () => (await effectRuns(id, "h")).runs === 1, "the first run");
    await inThread(id, (instance) => instance.ctx.abort("crash inside execute")).catch(() => undefined);
    // The first request after the restart wakes the thread, and the cut turn resumes at once.
    expect((await json("GET", `/threads/${id}`)).body.status).toBe("running");
    const posted = await json("POST", `/threads/${id}/messages`, { content: "second", script: [{ text: "later" }] });
    expect(posted.body.queued).toBe(true);
    await stubOf(id).waitIdle();
    const messages = await messagesOf(id);
    expect(messages.map((m) => `${m.role}:${m.content.slice(0, 12)}`)).toEqual([
      "user:first",
      "assistant:",
      "tool:" + messages[2]!.content.slice(0, 12),
      "assistant:",
      "tool:waited 500ms",
      "assistant:done",
      "user:second",
      "assistant:later",
    ]);
    expect(messages[2]!.toolCallId).toBe("h");
    expect(validHistory(messages)).toBe(true);
    expect((await callsOf(id))[0]).toMatchObject({ status: "succeeded", restarts: 1 });
  });
});

describe("an approval survives a crash right after it", () => {
  it("15. the approved call runs once when the thread comes back, and its turn goes on", async () => {
    const id = await createThread({ agent: "guarantees" });
    await json("POST", `/threads/${id}/messages`, { content: "pay", script: [{ toolCalls: [{ id: "pay", name: "needs_ok", arguments: { amount: 500 } }] }, { text: "done" }] });
    await stubOf(id).waitIdle();
    await crashAt(id, "pay", "before_journal");
    const approved = await json("POST", `/threads/${id}/calls/pay/approve`, {});
    expect(approved.status).toBe(503);
    expect(approved.body.error.code).toBe("thread_restarted");
    await until(async () => (await callsOf(id))[0]?.status === "succeeded", "the approved call to run");
    await stubOf(id).waitIdle();
    expect((await callsOf(id))[0]).toMatchObject({ status: "succeeded", approvedBy: "tester" });
    expect((await effectRuns(id, "pay")).runs).toBe(1);
    await until(async () => (await messagesOf(id)).at(-1)?.content === "done", "the turn to finish");
  });
});
