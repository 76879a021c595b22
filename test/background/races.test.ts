/**
 * Background runs, the interleavings that lost a completion (src/background/): the child's word
 * arriving while the child still ran (its parent heard `running`), and the parent's alarm firing
 * before a run's look was due (the watchdog's firing), which consumed the alarm and armed no
 * other. Each interleaving is forced: the child's answer and the alarm are driven, no sleep.
 */
import { evictDurableObject, runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { callsOf, createThread, inThread, json, rawStub, runTurn, until } from "../helpers.js";
import { completionMessages, finishedOf } from "./helpers.js";

/** Waits on `check`, up to 20 s: less than `RUN_CHECK_MS` (30 s), so no look of the alarm can end it. */
const waitLook = (check: () => Promise<boolean>, what: string) => until(check, what, 20_000);

/** A lead whose one run (`bg_careful`, call id `callId`) waits for approval in its child; answers the child's thread id. */
async function runWaiting(callId: string): Promise<{ id: string; child: string }> {
  const id = await createThread({ agent: "bg_lead" });
  await runTurn(id, "research", [{ toolCalls: [{ id: callId, name: "bg_careful", arguments: { input: "q" } }] }, { text: "Started." }, { text: "noted" }]);
  const [run] = await inThread(id, (i) => i.schedules.runs.list() as { childThreadId: string }[]);
  const child = run!.childThreadId;
  await waitLook(async () => (await callsOf(child)).some((c) => c.callId === "pay" && c.status === "awaiting_approval"), "the child's call to wait for approval");
  return { id, child };
}

describe("background runs: a completion is never lost to an interleaving", () => {
  it("the child's word comes while it still runs (the parent hears running): the child tells again once it stopped, and the completion arrives, once", async () => {
    const { id, child } = await runWaiting("race_tell");
    // The first look at the child, the one its turn's end asks for, finds it still running, as
    // when the parent's question overtakes the end of the child's turns.
    await inThread(child, (i) => {
      const real = i.runner.firstTurn.answer.bind(i.runner.firstTurn);
      let asked = 0;
      i.runner.firstTurn.answer = () => (asked++ === 0 ? { ...real(), status: "running" } : real());
    });
    expect((await json("POST", `/threads/${child}/calls/pay/approve`, {})).status).toBe(200);
    await waitLook(async () => (await finishedOf(id)).length >= 1, "run_finished (before the alarm's next look)");
    await inThread(id, (i) => i.schedules.runs.collect());
    expect((await finishedOf(id)).map((e) => [e.data.runId, e.data.status])).toEqual([["run_race_tell", "completed"]]);
    expect(await completionMessages(id, "run_race_tell")).toHaveLength(1);
  });

  it("the alarm fires before a run's look is due (the watchdog's): it stays armed for the look, across an eviction, and the look delivers the completion once", async () => {
    const { id, child } = await runWaiting("race_alarm");
    // The child's word will be lost (it tells a thread that does not exist): only the alarm can find the completion.
    await inThread(child, (i) => (i.world.meta.parent = { threadId: "0".repeat(64), callId: "race_alarm" }));
    expect(await inThread(id, (i) => i.schedules.runs.collect())).toBe(0);
    const look = (await inThread(id, (i) => i.schedules.runs.dueAt())) as number;
    expect(look).toBeGreaterThan(Date.now());
    // The alarm fires early, again and again (the watchdog's own, set for 2 s): each firing keeps it armed for the look.
    for (let n = 0; n < 3; n++) {
      expect(await runDurableObjectAlarm(rawStub(id))).toBe(true);
      const at = await inThread(id, (i) => i.ctx.storage.getAlarm() as Promise<number | null>);
      expect(at).not.toBeNull();
      expect(at!).toBeLessThanOrEqual(look);
    }
    expect((await json("POST", `/threads/${child}/calls/pay/approve`, {})).status).toBe(200);
    await waitLook(async () => (await json("GET", `/threads/${child}`)).body.lastTurn?.status === "completed", "the child's turn to end");
    await evictDurableObject(rawStub(id));
    expect(await finishedOf(id)).toEqual([]);
    // The look comes due (moved to now through the store, which keeps the next look's time; the alarm is left as it is).
    await inThread(id, (i) => i.schedules.runs.store.checkAt("run_race_alarm", 0));
    expect(await runDurableObjectAlarm(rawStub(id))).toBe(true);
    await runDurableObjectAlarm(rawStub(id));
    expect((await finishedOf(id)).map((e) => [e.data.runId, e.data.status])).toEqual([["run_race_alarm", "completed"]]);
    expect(await completionMessages(id, "run_race_alarm")).toHaveLength(1);
  });
});
