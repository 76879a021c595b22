/**
 * A rolled-back transaction makes the thread's stores forget what they keep in memory; it must not
 * free the lock of a call still running. Found by a hostile review of the straggler fixes, which
 * had put the per-call lock among that memory: a second request for a running write's call id then
 * went in at once, parked the call as cut by a restart, and a settlement to retry ran it twice.
 */
import { expect, it } from "vitest";
import { createThread, inThread, json, effectRuns, stubOf } from "../helpers.js";
import { OWNER, untilStarted } from "../removal-helpers.js";

type Answer = { ok: true; value: { status: string; result: string | null } } | { ok: false; error: { code: string } };
const pick = (r: Answer) => (r.ok ? { ok: true, status: r.value.status, result: r.value.result } : { ok: false, code: r.error.code });

/** A write runs as call `c1`; `rollback` rolls a transaction back meanwhile; then a second request for `c1` comes. */
async function twoRequestsOneCall(rollback: (id: string) => Promise<unknown>) {
  const id = await createThread({ agent: "deletable" });
  const stub = stubOf(id);
  const first = stub.callTool(OWNER, { toolName: "slow_write", input: { ms: 2000 }, callId: "c1" }) as Promise<Answer>;
  await untilStarted(id, 1);
  const rolled = await rollback(id);
  const second = (await stub.callTool(OWNER, { toolName: "slow_write", input: { ms: 2000 }, callId: "c1" })) as Answer;
  return { rolled, first: pick(await first), second: pick(second), runs: (await effectRuns(id, "c1")).runs };
}

it("a tool's refused injectMessage while a write runs: a second request for the write's call id waits for it and gets its one result", async () => {
  const seen = await twoRequestsOneCall(async (id) => (await json("POST", "/v1/tools/inject_unstorable", { sessionId: id, input: {} })).body.result);
  expect(seen.rolled).toMatch(/^refused/);
  expect(seen.first).toMatchObject({ ok: true, status: "succeeded" });
  expect(seen.second).toEqual(seen.first);
  expect(seen.runs).toBe(1);
}, 60_000);

it("any rolled-back transaction while a write runs: a second request for the write's call id waits for it and gets its one result", async () => {
  const seen = await twoRequestsOneCall((id) =>
    inThread(id, (t) => {
      try {
        t.store.atomically(() => {
          throw new Error("another write fails");
        });
      } catch (e) {
        return String(e);
      }
      return "no rollback";
    }),
  );
  expect(seen.rolled).toMatch(/another write fails/);
  expect(seen.first).toMatchObject({ ok: true, status: "succeeded" });
  expect(seen.second).toEqual(seen.first);
  expect(seen.runs).toBe(1);
}, 60_000);
