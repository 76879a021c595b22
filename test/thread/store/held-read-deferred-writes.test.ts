/**
 * A read's held row finished while write rows wait for the next commit (group commit), on an
 * instance that has not yet learnt the newest `ord` (a fresh instance, or after a rollback): the
 * read's result must be recorded as it came, once.
 */
import { describe, expect, it } from "vitest";
import { callsOf, createThread, inThread, json, rawStub, stubOf } from "../../helpers.js";

const OWNER = { userId: "tester", name: "tester", roles: [], admin: false };

describe("held read row finished while write rows are deferred", () => {
  it("the store records the read's own result when the newest ord is not known yet", async () => {
    const id = await createThread({ agent: "robustness" });
    const outcome = await inThread(id, (instance: any) => {
      const calls = instance.store.calls;
      const entry = (callId: string, toolName: string) => ({ callId, toolName, source: "direct", status: "started", argsText: "{}", input: {}, effectKey: `k-${callId}` });
      calls.insert(entry("first", "effect_write"));
      // What a fresh instance knows (and what a rolled-back transaction leaves): no newest ord.
      calls.forget();
      const w = calls.defer(entry("w", "effect_write"));
      calls.hold(entry("r", "microtask_read"));
      let thrown: string | null = null;
      try {
        calls.finish("r", "succeeded", { status: "success", result: "after 0 turns" }, { attempts: 1, durationMs: 1 });
      } catch (e) {
        thrown = String(e);
      }
      return { thrown, failure: w.failure ? String(w.failure) : null, r: calls.get("r")?.status, w: calls.get("w")?.status, order: [...calls.list(10)].map((c: { callId: string }) => c.callId) };
    });
    expect(outcome).toEqual({ thrown: null, failure: null, r: "succeeded", w: "started", order: ["first", "w", "r"] });
  });

  it("in the Durable Object: after a restart, a read answered while a sync that wrote no row runs, beside a write, keeps its success", async () => {
    const id = await createThread({ agent: "robustness" });
    await json("POST", "/v1/tools/effect_write", { sessionId: id, input: {} });
    // A fresh instance: it has not read the newest ord yet.
    await (rawStub(id) as any).restartForTest().catch(() => undefined);
    await callsOf(id);
    const seen = await inThread(id, async (t: any) => {
      // A sync with no new row behind it (as an approval's, a settle's or recovery's flush).
      const sync = t.commits.flush();
      const write = t.callTool(OWNER, { toolName: "effect_write", input: {}, callId: "w" });
      const read = t.callTool(OWNER, { toolName: "microtask_read", input: { turns: 0 }, callId: "r" });
      await Promise.all([sync, write, read]);
      return { deferred: t.store.calls.deferrals as number, read: JSON.stringify(await read) };
    });
    // The write's row is written at once, behind the output gate: nothing is deferred.
    expect(seen.deferred).toBe(0);
    const r = (await callsOf(id)).find((c) => c.callId === "r");
    expect([r?.status, r?.result?.error ?? null, seen.read]).toEqual(["succeeded", null, expect.stringContaining('"ok":true')]);
  });
});
