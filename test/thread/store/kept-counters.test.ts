import { evictDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { EventFrame } from "../../../src/protocol.js";
import { Redactor } from "../../../src/secrets/redact.js";
import { callsOf, createThread, inThread, json, effectRuns, rawStub, request, eventsStoredIn, subscribe, until } from "../../helpers.js";

// The thread keeps some of its rows' facts in memory (the newest event seq, the newest call ord,
// whether a call can be queued, the attempts' deadlines) instead of asking SQLite on every call.
// These tests change the rows behind those facts in every way a thread can (a rolled-back
// transaction, removal and re-creation under the same id, eviction, a restart, requests
// interleaving at their awaits) and check that events stay gap-free and unique, replay stays
// exact from every cursor, and every write ran once with one result.

/** Every stored event seq and call ord, read in the thread's own SQLite. */
function storedNumbers(id: string): Promise<{ seqs: number[]; ords: number[]; callIds: string[] }> {
  return inThread(id, (i) => ({
    seqs: eventsStoredIn(i.ctx.storage.sql).map((e) => e.seq),
    ords: i.ctx.storage.sql.exec("SELECT ord FROM calls ORDER BY ord").toArray().map((r: { ord: number }) => r.ord),
    callIds: i.ctx.storage.sql.exec("SELECT call_id FROM calls ORDER BY ord").toArray().map((r: { call_id: string }) => r.call_id),
  }));
}

/** Every stored event's type and call id (for call events), oldest first. */
function storedEvents(id: string): Promise<Array<{ type: string; callId?: string }>> {
  return inThread(id, (i) =>
    eventsStoredIn(i.ctx.storage.sql).map((e) => ({ type: e.type, callId: (e.data as { callId?: string } | null)?.callId })),
  );
}

const oneToN = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

/** Replays from `since`, one message per frame or (`batch`) arrays of frames, until `last`. */
async function replay(id: string, since: number, last: number, batch: boolean): Promise<number[]> {
  const sub = await subscribe(id, since, batch);
  if (since < last) await sub.until((f) => (f.at(-1)?.seq ?? since) >= last);
  sub.close();
  return sub.frames.map((f: EventFrame) => f.seq);
}

/** Checks the thread's log is 1..n with nothing twice, and that replay from every cursor (plain and batched) gives exactly the rest. */
async function expectExactLog(id: string): Promise<number> {
  const { seqs, ords } = await storedNumbers(id);
  expect(seqs).toEqual(oneToN(seqs.length));
  expect(new Set(ords).size).toBe(ords.length);
  const last = (await json<{ lastSeq: number }>("GET", `/threads/${id}`)).body.lastSeq;
  expect(last).toBe(seqs.length);
  for (const since of new Set([0, 1, Math.floor(last / 2), last - 1, last])) {
    const rest = oneToN(last).slice(since);
    expect([since, await replay(id, since, last, false)]).toEqual([since, rest]);
    expect([since, await replay(id, since, last, true)]).toEqual([since, rest]);
  }
  return last;
}

async function write(id: string, label: string): Promise<{ callId: string; result: string }> {
  const res = await json("POST", "/v1/tools/effect_write", { input: { label }, sessionId: id });
  expect(res.status).toBe(200);
  return res.body;
}

describe("counters kept in memory stay true to the rows", () => {
  it("after a rolled-back transaction that stored an event and a call, the next ones take the numbers it gave back", async () => {
    const id = await createThread({ agent: "robustness" });
    await write(id, "before");
    const thrown = await inThread(id, (i) => {
      try {
        i.store.atomically(() => {
          i.store.events.append("probe", { n: 1 });
          i.store.calls.insert({ callId: "rolled_back", toolName: "effect_write", source: "direct", status: "queued", argsText: "{}", effectKey: `${id}:rolled_back` });
          throw new Error("roll back");
        });
      } catch (e) {
        return (e as Error).message;
      }
      return "did not throw";
    });
    expect(thrown).toBe("roll back");
    const after = await write(id, "after");
    const { ords, callIds } = await storedNumbers(id);
    expect(callIds).not.toContain("rolled_back");
    expect(ords).toEqual([1, 2]);
    expect(callIds[1]).toBe(after.callId);
    await expectExactLog(id);
  });

  it("after an eviction and after a restart (ctx.abort), numbering goes on from the stored rows", async () => {
    const id = await createThread({ agent: "robustness" });
    await write(id, "one");
    await evictDurableObject(rawStub(id));
    await write(id, "two");
    await inThread(id, (i) => i.ctx.abort("restart between calls")).catch(() => undefined);
    await write(id, "three");
    expect((await storedNumbers(id)).ords).toEqual([1, 2, 3]);
    await expectExactLog(id);
  });

  it("a thread removed and made again under the same id (same instance in memory) numbers from 1 again", async () => {
    const token = `web:${crypto.randomUUID()}`;
    const first = await json("POST", "/threads", { agent: "robustness", continuationToken: token });
    expect(first.status).toBe(201);
    const id = first.body.threadId as string;
    for (const label of ["a", "b", "c"]) await write(id, label);
    const before = await storedNumbers(id);
    expect(before.ords).toEqual([1, 2, 3]);
    expect((await request(`/threads/${id}`, { method: "DELETE" })).status).toBeLessThan(300);
    const again = await json("POST", "/threads", { agent: "robustness", continuationToken: token });
    expect(again.status).toBe(201);
    expect(again.body.threadId).toBe(id);
    const only = await write(id, "after removal");
    const after = await storedNumbers(id);
    expect(after.callIds).toEqual([only.callId]);
    expect(after.ords).toEqual([1]);
    expect((await callsOf(id)).map((c) => c.callId)).toEqual([only.callId]);
    // thread_created, then the call's events, from seq 1: nothing of the removed thread's log.
    await expectExactLog(id);
    expect(after.seqs.length).toBeLessThan(before.seqs.length);
    // The alarm time kept in memory was dropped with the thread: the new thread's call armed the watchdog.
    expect(await inThread(id, (i) => i.ctx.storage.getAlarm())).not.toBeNull();
  });

  it("requests interleaving at their awaits: unique ords and seqs, every write ran once, replay exact", async () => {
    const id = await createThread({ agent: "robustness" });
    const labels = Array.from({ length: 12 }, (_, i) => `w${i}`);
    const [writes, emits] = await Promise.all([
      Promise.all(labels.map((label) => write(id, label))),
      Promise.all(labels.map(() => json("POST", "/v1/tools/emit_blob", { input: { bytes: 10 }, sessionId: id }))),
    ]);
    for (const e of emits) expect(e.status).toBe(200);
    for (const w of writes) expect((await effectRuns(id, w.callId)).runs).toBe(1);
    const calls = await callsOf(id);
    expect(calls).toHaveLength(24);
    for (const c of calls) expect(["succeeded"]).toContain(c.status);
    expect((await storedNumbers(id)).ords).toEqual(oneToN(24));
    const last = await expectExactLog(id);
    // Each call: started + finished; each emit_blob one custom event more; thread_created first.
    expect(last).toBe(1 + 24 * 2 + 12);
  });
});

describe("direct calls that queue, interleaving", () => {
  it("five concurrent direct calls that each queue two calls: every queued call runs once with one result, none left queued", async () => {
    const id = await createThread({ agent: "faults" });
    const answers = await Promise.all(Array.from({ length: 5 }, () => json("POST", "/v1/tools/queue_two", { input: {}, sessionId: id })));
    for (const a of answers) expect(a.body).toMatchObject({ ok: true, status: "succeeded" });
    await until(async () => (await callsOf(id)).every((c) => c.status !== "queued" && c.status !== "started"), "the queue to drain");
    const calls = await callsOf(id);
    expect(calls).toHaveLength(15);
    const byTool = (name: string) => calls.filter((c) => c.toolName === name);
    expect(byTool("queue_two").map((c) => c.status)).toEqual(Array(5).fill("succeeded"));
    expect(byTool("throws_error").map((c) => c.status)).toEqual(Array(5).fill("failed"));
    expect(byTool("record_call").map((c) => c.status)).toEqual(Array(5).fill("succeeded"));
    // record_call counts its own runs per call id: each ran exactly once.
    const counts = await inThread(id, (i) => byTool("record_call").map((c) => i.store.kv.get(`count:${c.callId}`)));
    expect(counts).toEqual(Array(5).fill(1));
    const finished = (await storedEvents(id)).filter((e) => e.type === "tool_call_finished").map((e) => e.callId);
    expect(finished.sort()).toEqual(calls.map((c) => c.callId).sort());
    await expectExactLog(id);
  });
});

describe("attempts of execute share one deadline timer", () => {
  it("a short deadline fires on time while a longer one runs, the longer one not before its own, also after an eviction", async () => {
    const id = await createThread({ agent: "robustness" });
    for (const round of ["first", "after eviction"]) {
      const order: string[] = [];
      const slow = json("POST", "/v1/tools/deadline_slow", { input: {}, sessionId: id }).then((r) => (order.push("slow"), r));
      // The short call starts once the slow one's attempt (and its timer) is set.
      for (const end = Date.now() + 10_000; !(await inThread(id, (i) => i.world.calls.deadlines.pending.size > 0)); ) {
        if (Date.now() > end) throw new Error("the slow call's deadline was never set");
        await new Promise((r) => setTimeout(r, 5));
      }
      const short = json("POST", "/v1/tools/deadline_read", { input: {}, sessionId: id }).then((r) => (order.push("short"), r));
      const [s, q] = await Promise.all([slow, short]);
      expect([round, order]).toEqual([round, ["short", "slow"]]);
      expect(q.body).toMatchObject({ ok: false, attempts: 2, error: "timed out: deadline_read did not finish within 30 ms (timeoutMs)" });
      expect(s.body).toMatchObject({ ok: false, attempts: 1, error: "timed out: deadline_slow did not finish within 2000 ms (timeoutMs)" });
      expect(s.body.durationMs).toBeGreaterThanOrEqual(2000);
      await evictDurableObject(rawStub(id));
    }
  });
  it("leaves no timer behind: a second after the last attempt ends, an idle thread has none set", async () => {
    const id = await createThread({ agent: "robustness" });
    // The default deadline (far off): the shared timer is set at most a second ahead.
    expect((await json("POST", "/v1/tools/slow_read", { input: { ms: 5 }, sessionId: id })).body).toMatchObject({ ok: true });
    expect(await inThread(id, (i) => i.world.calls.deadlines.timer !== undefined)).toBe(true);
    await new Promise((r) => setTimeout(r, 1300));
    expect(await inThread(id, (i) => ({ timer: i.world.calls.deadlines.timer, pending: i.world.calls.deadlines.pending.size }))).toEqual({ timer: undefined, pending: 0 });
  });
});

describe("redaction gives back a copy of an Error", () => {
  it("an Error whose message is clean still loses what it carries besides (details, cause), as a copy did before", () => {
    const r = new Redactor([{ name: "TOKEN", value: "sk-live-123456" }]);
    const error = Object.assign(new Error("request failed", { cause: new Error("header sk-live-123456") }), { details: { header: "sk-live-123456" } });
    const out = r.value(error);
    expect(out.message).toBe("request failed");
    expect(JSON.stringify(Object.entries(out))).not.toContain("sk-live");
    expect(String((out as Error).cause ?? "")).not.toContain("sk-live");
    // The caller's error is left as it was.
    expect(error.details.header).toBe("sk-live-123456");
    const plain = new Error("clean");
    expect([r.value(plain).message, r.value(plain) === plain]).toEqual(["clean", false]);
  });
});

describe("the socket list kept between bursts", () => {
  /** Waits until `sub` has every frame up to `last` and checks it got exactly (since, last]. */
  async function expectExactLive(sub: Awaited<ReturnType<typeof subscribe>>, since: number, last: number, what: string): Promise<void> {
    await sub.until((f) => (f.at(-1)?.seq ?? since) >= last);
    expect([what, sub.frames.map((f) => f.seq)]).toEqual([what, oneToN(last).slice(since)]);
  }

  it("sockets opened, closed and opened again while calls run: each gets exactly its frames live, plain and batched", async () => {
    const token = `web:${crypto.randomUUID()}`;
    const id = (await json("POST", "/threads", { agent: "robustness", continuationToken: token })).body.threadId as string;
    const lastSeq = async () => (await json<{ lastSeq: number }>("GET", `/threads/${id}`)).body.lastSeq;
    const a = await subscribe(id, 0);
    await write(id, "a1");
    const bSince = await lastSeq();
    const b = await subscribe(id, bSince, true);
    await write(id, "b1");
    a.close();
    // Sockets opened while a burst of calls is in flight: the replay and the live frames meet without gap or repeat.
    const burst = Promise.all(["c1", "c2", "c3", "c4", "c5", "c6"].map((label) => write(id, label)));
    const c = await subscribe(id, 0);
    const d = await subscribe(id, 0, true);
    await burst;
    await write(id, "c7");
    const last = await lastSeq();
    await expectExactLive(b, bSince, last, "b");
    await expectExactLive(c, 0, last, "c");
    await expectExactLive(d, 0, last, "d");
    for (const sub of [b, c, d]) sub.close();
    // Removed and made again under the same id: a new socket hears the new thread's frames live.
    expect((await request(`/threads/${id}`, { method: "DELETE" })).status).toBeLessThan(300);
    expect((await json("POST", "/threads", { agent: "robustness", continuationToken: token })).body.threadId).toBe(id);
    const e = await subscribe(id, 0, true);
    await write(id, "e1");
    await write(id, "e2");
    await expectExactLive(e, 0, await lastSeq(), "e");
    e.close();
  });
});
