/**
 * The work of an agent called as a tool is its child's first turn, and a prompt called as a tool
 * is its nested run: what either did is never recorded as "nothing happened", and never run
 * again. Review 23b found each case below failing: a stopped prompt call whose nested write ran
 * was recorded "lookup confirms nothing happened"; a parent restarted while its child was deleted
 * made the child again and ran its write twice; a parent's stop landing before its child's first
 * turn began stopped nothing; a parent waited for turns the child's owner queued behind the first;
 * a thread from before migration v28 answered with its newest turn; and a first turn its owner
 * stopped answered the parent's call as a success.
 */
import { describe, expect, it } from "vitest";
import { callsOf, createThread, effectRuns, eventsOf, inThread, json, stubOf, until } from "../helpers.js";
import { childThreadOf, delegatedAndWaiting } from "./delegation.js";
import { deliverAlarm } from "../schedules/helpers.js";

const OWN_ANSWER = "Bought the source; the answer is 42.";
/** A parent whose call `c1` waits on a slow_researcher child, whose first turn has written (`c_w`) and now runs a slow read. */
async function slowlyDelegated(): Promise<{ id: string; child: string }> {
    const id = await createThread({ agent: "slow_delegator" });
    await json("POST", `/threads/${id}/messages`, {
      content: "research",
      script: [{ toolCalls: [{ id: "c1", name: "slow_researcher", arguments: { input: "what?" } }] }, { text: "done" }],
    });
    await until(async () => (await eventsOf(id)).some((e) => e.type === "subagent_started"), "the child to start");
    const child = await childThreadOf(id);
    await until(async () => (await callsOf(child)).find((c) => c.callId === "c_slow")?.status === "started", "the child's first turn to run its slow read");
  return { id, child };
}

const call = (id: string, name: string, args: Record<string, unknown> = {}) => ({ id, name, arguments: args });

describe("a prompt called as a tool", () => {
  it("is never recorded 'nothing happened'", async () => {
    const id = await createThread({ agent: "payer" });
    const script = [{ toolCalls: [call("p1", "payout", { input: "pay" })] }, { toolCalls: [call("ew", "effect_write", { label: "nested write" })] }, { toolCalls: [call("n_pay", "needs_ok", { amount: 500 })] }, { text: "paid" }, { text: "done" }];
    expect((await json("POST", `/threads/${id}/messages`, { content: "go", script })).status).toBe(202);
    await until(async () => (await json("GET", `/threads/${id}`)).body.status === "waiting", "the turn to wait");
    expect((await callsOf(id)).find((c) => c.callId === "p1")?.status).toBe("parked");
    // The write inside the prompt ran.
    expect((await effectRuns(id, "ew")).runs).toBe(1);
    expect((await callsOf(id)).find((c) => c.callId === "ew")?.status).toBe("succeeded");

    expect((await json("POST", `/threads/${id}/stop`)).body).toEqual({ stopped: true });
    await stubOf(id).waitIdle();
    const p1 = (await callsOf(id)).find((c) => c.callId === "p1")!;
    expect(JSON.stringify(p1.result ?? null)).not.toContain("nothing happened");
  });
});

describe("a parent restarted while its child is deleted", () => {
  it("never runs the child's work again (a write runs once)", async () => {
    const { id, child } = await slowlyDelegated();
    expect((await effectRuns(child, "c_w")).runs).toBe(1);

    // The parent restarts while its call waits; the child's owner deletes the child meanwhile.
    await Promise.all([inThread(id, (t) => t.restartForTest()).catch(() => undefined), json("DELETE", `/threads/${child}`)]);
    await until(async () => (await callsOf(id)).find((c) => c.callId === "c1")?.status !== "started", "the parent's call to end or park", 20_000);
    // Whatever the parent's alarms would do later (recovery, a watchdog) runs now: none may run the child's work again.
    for (let i = 0; i < 5 && (await deliverAlarm(id)) === true; i++) await stubOf(id).waitIdle();
    const c1 = (await callsOf(id)).find((c) => c.callId === "c1")!;
    expect({ childWriteRuns: (await effectRuns(child, "c_w")).runs, c1: c1.status }).toEqual({ childWriteRuns: 1, c1: expect.stringMatching(/failed|parked/) });
  }, 60_000);
});

describe("a parent's stop landing before its child's first turn begins", () => {
  it("stops the child: its write never runs", async () => {
    const id = await createThread({ agent: "late_delegator" });
    await json("POST", `/threads/${id}/messages`, {
      content: "go",
      script: [{ toolCalls: [{ id: "c1", name: "late_researcher", arguments: { input: "write it" } }] }, { text: "done" }],
    });
    await until(async () => (await eventsOf(id)).some((e) => e.type === "subagent_started"), "the child to start", 10_000);
    const child = await childThreadOf(id);
    expect((await json("POST", `/threads/${id}/stop`)).body).toEqual({ stopped: true });
    await stubOf(id).waitIdle();
    await until(async () => (await json("GET", `/threads/${child}`)).body.status === "idle", "the child to settle", 10_000);
    const c1 = (await callsOf(id)).find((c) => c.callId === "c1")!;
    const turns = (await eventsOf(child)).filter((e) => e.type === "turn_finished").map((e) => (e.data as { status: string }).status);
    expect({ childWrites: (await effectRuns(child, "c_w")).runs, childTurns: turns, parentCall: c1.status }).toEqual({ childWrites: 0, childTurns: ["stopped"], parentCall: "failed" });
  }, 30_000);
});

describe("an agent call waiting on its child's first turn", () => {
  it("answers once that turn ends, not after a turn the child's owner queued behind it", async () => {
    const { id, child } = await slowlyDelegated();
    // The child's owner queues a turn of their own behind the first, which runs 20 s.
    const other = { content: "something else", script: [{ toolCalls: [{ id: "c_long", name: "slow_read", arguments: { ms: 20_000 } }] }, { text: "OTHER" }] };
    expect((await json("POST", `/threads/${child}/messages`, other)).body).toMatchObject({ queued: true });
    await until(async () => (await eventsOf(child)).some((e) => e.type === "turn_finished"), "the child's first turn to end", 10_000);
    const firstEnded = Date.now();
    await until(async () => (await callsOf(id)).find((c) => c.callId === "c1")?.status === "succeeded", "the parent's call to take the first turn's answer", 8_000).catch(() => undefined);
    const c1 = (await callsOf(id)).find((c) => c.callId === "c1")!;
    expect({ status: c1.status, waitedMs: Date.now() - firstEnded < 8_000 }).toEqual({ status: "succeeded", waitedMs: true });
    expect(c1.result).toEqual({ status: "success", result: "FIRST TURN ANSWER" });
  }, 60_000);
});

describe("a child's first turn stopped by the child's owner", () => {
  it("does not answer the parent's call as a success", async () => {
    const { id, child } = await delegatedAndWaiting();
    expect((await json("POST", `/threads/${child}/stop`)).body).toEqual({ stopped: true });
    await until(async () => !["parked", "started"].includes((await callsOf(id)).find((c) => c.callId === "c1")!.status), "the call to end", 15_000);
    const c1 = (await callsOf(id)).find((c) => c.callId === "c1")!;
    expect((await callsOf(child)).find((c) => c.callId === "c_pay")?.status).toBe("aborted");
    expect({ status: c1.status, result: c1.result }).toMatchObject({ status: "failed", result: { status: "error" } });
  }, 60_000);
});

describe("a child thread from before v28", () => {
  it("answers with its first turn's answer, not a later turn's", async () => {
    const { id, child } = await delegatedAndWaiting();
    expect((await json("POST", `/threads/${child}/messages`, { content: "something else", script: [{ text: "ANSWER OF ANOTHER TURN" }] })).status).toBe(202);
    expect((await json("POST", `/threads/${child}/calls/c_pay/approve`, {})).status).toBe(200);
    await until(async () => (await eventsOf(child)).filter((e) => e.type === "turn_finished").length === 2, "both child turns to end", 10_000);
    await stubOf(child).waitIdle();

    // As migrated from before v28: the column is there, its values are NULL.
    const before = await inThread(child, (t) => t.runner.firstTurn.answer());
    expect(before).toMatchObject({ status: "completed", answer: OWN_ANSWER });
    const after = await inThread(child, (t) => {
      t.ctx.storage.sql.exec("UPDATE turns SET messages_before = NULL");
      return t.runner.firstTurn.answer();
    });
    expect(after).toMatchObject({ status: "completed", answer: OWN_ANSWER });
  });
});

describe("a parent waiting on its child's first turn as a person's decision resumes it", () => {
  it("is never answered 'running', which its call would take as the agent's failure (review 23c)", async () => {
    const { child } = await delegatedAndWaiting();
    // The child's waiting first turn is resumed (here by a stop; a decision's resume is the same
    // start), and the parent asks with wait, as durable.ts childAnswer does, in that same moment.
    const answer = await inThread(child, async (t) => {
      t.runner.stop();
      if (!t.runner.firstTurn.ended()) await t.runner.firstTurn.settled();
      return t.runner.firstTurn.answer();
    });
    expect(answer.status).toBe("stopped");
  }, 30_000);
});
