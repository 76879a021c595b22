/**
 * Crashes among many direct write calls that reach one thread together: their rows are written at
 * once and none waits for a commit (the output gate holds their effects, src/tools/journal-order.ts),
 * so rows of several calls share commits; a real `ctx.abort()` then cuts the thread at a point of one of them. After the thread's own
 * alarm recovers it, no write ran twice, every call that ran has its row, and every call with a
 * row has exactly one result.
 */
import { describe, expect, it } from "vitest";
import { callsOf, createThread, inThread, effectRuns, rawStub, stubOf } from "../../helpers.js";
import { callsWithoutOneResult, settleParked, waitAtRest, waitForAlarm } from "../../crash/matrix.js";
import { firedCrashes, planCrashes } from "../../crash/plan.js";

const OWNER = { userId: "tester", name: "tester", roles: [], admin: false };
const CALLS = 8;
const POINTS = ["before_journal", "after_journal", "inside_execute", "after_effect", "while_recording", "after_result"] as const;

async function scenario(point: string, target: number, tool: string): Promise<{ problems: string[]; answered: number }> {
  const threadId = await createThread({ agent: "guarantees" });
  // A first call outside the batch, so the batch's first call is the lone one whose sync the rest wait for.
  await stubOf(threadId).callTool(OWNER, { toolName: tool, input: {}, callId: "warm" });
  const ids = Array.from({ length: CALLS }, (_, i) => `g${i}`);
  planCrashes(threadId, [{ point, callId: ids[target]! }]);
  const answers = await Promise.all(ids.map((callId) => stubOf(threadId).callTool(OWNER, { toolName: tool, input: {}, callId }).then((r) => r, (e: unknown) => ({ ok: false, thrown: String(e) }))));
  const problems: string[] = [];
  if (firedCrashes(threadId).length !== 1) problems.push(`crash did not fire (${firedCrashes(threadId).join(",")})`);
  await waitForAlarm(threadId);
  let rest = await waitAtRest(threadId);
  if ((await settleParked(threadId)) > 0) rest = await waitAtRest(threadId);
  if (rest) problems.push(rest);
  const rows = new Map((await callsOf(threadId)).map((c) => [c.callId, c]));
  for (const [i, callId] of ids.entries()) {
    const { runs } = await effectRuns(threadId, callId);
    const row = rows.get(callId);
    if (runs > 1) problems.push(`${callId} ran ${runs} times`);
    // The journal comes first: a call that ran has its row, whatever the crash cut.
    if (runs > 0 && !row) problems.push(`${callId} ran without a durable journal row`);
    const answer = answers[i] as { ok: boolean; value?: { ok: boolean; status: string } };
    if (answer.ok && answer.value?.status === "succeeded" && (row?.status !== "succeeded" || runs !== 1)) {
      problems.push(`${callId} answered succeeded but its row is ${row?.status ?? "missing"} with ${runs} run(s)`);
    }
  }
  problems.push(...(await callsWithoutOneResult(threadId)));
  return { problems, answered: answers.filter((a) => (a as { ok: boolean }).ok).length };
}

describe("crashes while journal rows are deferred (group commit)", () => {
  it("many direct writes to one thread defer no row: each is written at once, behind the output gate (no flush; only the syncs that batch requests)", async () => {
    const threadId = await createThread({ agent: "guarantees" });
    await stubOf(threadId).callTool(OWNER, { toolName: "effect_write", input: {}, callId: "warm" });
    const before = await inThread(threadId, (t: any) => ({ deferred: t.store.calls.deferrals as number, syncs: t.commits.syncs as number }));
    await Promise.all(Array.from({ length: CALLS }, (_, i) => stubOf(threadId).callTool(OWNER, { toolName: "effect_write", input: {}, callId: `p${i}` })));
    const after = await inThread(threadId, (t: any) => ({ deferred: t.store.calls.deferrals as number, syncs: t.commits.syncs as number }));
    expect([after.deferred - before.deferred, after.syncs - before.syncs]).toEqual([0, 0]);
  });

  for (const point of POINTS) {
    for (const target of [1, 5]) {
      it(`write g${target} cut @ ${point}: no write twice, none without its row, one result each`, async () => {
        const { problems } = await scenario(point, target, "effect_write");
        expect(problems).toEqual([]);
      }, 120_000);
    }
  }
  it("the same call id twice in one batch of deferred rows: it runs once and both get its one result", async () => {
    const threadId = await createThread({ agent: "guarantees" });
    await stubOf(threadId).callTool(OWNER, { toolName: "effect_write", input: {}, callId: "warm" });
    const ids = ["a0", "dup", "a1", "dup", "a2", "dup", "a3"];
    const answers = await Promise.all(ids.map((callId) => stubOf(threadId).callTool(OWNER, { toolName: "effect_write", input: {}, callId }) as Promise<any>));
    const dups = answers.filter((_, i) => ids[i] === "dup").map((a) => JSON.stringify(a.value ?? a));
    expect(new Set(dups).size).toBe(1);
    expect((await effectRuns(threadId, "dup")).runs).toBe(1);
    expect((await callsOf(threadId)).map((c) => c.callId)).toEqual(["warm", "a0", "dup", "a1", "a2", "a3"]);
    expect(await callsWithoutOneResult(threadId)).toEqual([]);
  });

  it("the watchdog fired while rows wait: it recovers nothing that is running, each write runs once", async () => {
    const threadId = await createThread({ agent: "guarantees" });
    await stubOf(threadId).callTool(OWNER, { toolName: "effect_write", input: {}, callId: "warm" });
    const ids = Array.from({ length: CALLS }, (_, i) => `w${i}`);
    const calls = ids.map((callId) => stubOf(threadId).callTool(OWNER, { toolName: "effect_write", input: {}, callId }) as Promise<any>);
    const alarms = [0, 1, 2].map(() => (rawStub(threadId) as any).testAlarm().catch((e: unknown) => String(e)));
    const answers = await Promise.all(calls);
    await Promise.all(alarms);
    expect(answers.map((a) => a.ok && a.value.status)).toEqual(Array(CALLS).fill("succeeded"));
    for (const id of ids) expect((await effectRuns(threadId, id)).runs, id).toBe(1);
    const rows = await callsOf(threadId);
    expect(rows.filter((r) => ids.includes(r.callId)).map((r) => [r.status, r.restarts ?? 0])).toEqual(Array(CALLS).fill(["succeeded", 0]));
    expect(await callsWithoutOneResult(threadId)).toEqual([]);
  });

  it("reconcilable calls cut @ after_journal while deferred: one result each", async () => {
    const { problems } = await scenario("after_journal", 4, "effect_reconcile_nonfinal");
    expect(problems).toEqual([]);
  }, 120_000);
});
