import { describe, expect, it } from "vitest";
import type { EventFrame } from "../../../src/protocol.js";
import { callsOf, createThread, eventsOf, inThread, json, subscribe } from "../../helpers.js";

// A fresh read keeps its journal row and its tool_call_started event in memory until its result
// (CallStore.hold, EventLog.hold): one that answers at once writes its row with the result in one
// statement and both events in one. These tests check that nobody can tell the difference: the
// row and the events are the ones an insert and an update would have left, events keep their
// order and numbering, and a read that waits for I/O is journaled and announced while it waits.

/** The call events and custom events of a thread, oldest first, as `type` or `type:callId`. */
function trail(frames: EventFrame[]): string[] {
  return frames.filter((f) => f.type !== "thread_created").map((f) => {
    const callId = (f.data as { callId?: string } | null)?.callId;
    return callId ? `${f.type}:${callId}` : f.type;
  });
}

const seqs = (frames: EventFrame[]) => frames.map((f) => f.seq);

describe("a read's row and started event held until its result", () => {
  it("a read that answers at once leaves one full row and consecutive started and finished events", async () => {
    const id = await createThread({ agent: "robustness" });
    const answer = await json("POST", "/v1/tools/emit_blob", { input: { bytes: 3 }, sessionId: id });
    expect(answer.body).toMatchObject({ ok: true, status: "succeeded", result: "emitted", attempts: 1 });
    const callId = answer.body.callId as string;
    const row = await inThread(id, (i) => i.ctx.storage.sql.exec("SELECT * FROM calls WHERE call_id = ?", callId).one());
    expect(row).toMatchObject({ status: "succeeded", source: "direct", tool_name: "emit_blob", attempts: 1, stubbed: 0, restarts: 0, error_code: null, outcome: null });
    expect(JSON.parse(row.result as string)).toEqual({ status: "success", result: "emitted" });
    expect(row.started_at).toBe(row.created_at);
    expect(row.finished_at as number).toBeGreaterThanOrEqual(row.started_at as number);
    expect(row.duration_ms).toBe(answer.body.durationMs);
    const frames = await eventsOf(id);
    // The tool's own event lands between the two, as it was emitted.
    expect(trail(frames)).toEqual([`tool_call_started:${callId}`, "blob", `tool_call_finished:${callId}`]);
    expect(seqs(frames)).toEqual([1, 2, 3, 4]);
    expect(frames[1]!.data).toMatchObject({ callId, toolName: "emit_blob", source: "direct", input: { bytes: 3 } });
  });

  it("a read that waits for I/O is listed as started and announced to subscribers before it answers", async () => {
    const id = await createThread({ agent: "robustness" });
    const sub = await subscribe(id);
    let answered = false;
    const call = json("POST", "/v1/tools/slow_read", { input: { ms: 400 }, sessionId: id }).then((r) => ((answered = true), r));
    await sub.until((frames) => frames.some((f) => f.type === "tool_call_started"));
    expect(answered).toBe(false);
    const listed = await callsOf(id);
    expect(listed.map((c) => [c.toolName, c.status])).toEqual([["slow_read", "started"]]);
    const answer = await call;
    expect(answer.body).toMatchObject({ ok: true, result: "waited 400ms" });
    await sub.until((frames) => frames.some((f) => f.type === "tool_call_finished"));
    sub.close();
    expect(trail(sub.frames)).toEqual([`tool_call_started:${answer.body.callId}`, `tool_call_finished:${answer.body.callId}`]);
    expect((await callsOf(id)).map((c) => c.status)).toEqual(["succeeded"]);
  });

  it("concurrent reads and writes: seqs 1..n, each call one started event before one finished, reads numbered in the order they started", async () => {
    const id = await createThread({ agent: "robustness" });
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        i % 3 === 0
          ? json("POST", "/v1/tools/effect_write", { input: { label: `w${i}` }, sessionId: id })
          : i % 3 === 1
            ? json("POST", "/v1/tools/emit_blob", { input: { bytes: i }, sessionId: id })
            : json("POST", "/v1/tools/slow_read", { input: { ms: 5 }, sessionId: id }),
      ),
    );
    for (const a of answers) expect(a.body).toMatchObject({ ok: true, status: "succeeded" });
    const frames = await eventsOf(id);
    expect(seqs(frames)).toEqual(Array.from({ length: frames.length }, (_, i) => i + 1));
    const order = trail(frames);
    for (const a of answers) {
      const started = order.indexOf(`tool_call_started:${a.body.callId}`);
      expect(started).toBeGreaterThanOrEqual(0);
      expect(order.lastIndexOf(`tool_call_started:${a.body.callId}`)).toBe(started);
      expect(order.filter((t) => t === `tool_call_finished:${a.body.callId}`)).toHaveLength(1);
      expect(order.indexOf(`tool_call_finished:${a.body.callId}`)).toBeGreaterThan(started);
    }
    // A read's row and started event are made together, so reads keep the same order in both.
    const reads = new Set(answers.filter((a) => a.body.toolName !== "effect_write").map((a) => a.body.callId as string));
    const byOrd = (await callsOf(id)).map((c) => c.callId).filter((c) => reads.has(c));
    const byStart = order.filter((t) => t.startsWith("tool_call_started:")).map((t) => t.slice("tool_call_started:".length)).filter((c) => reads.has(c));
    expect(byOrd).toEqual(byStart);
  });

  it("in the store: a held row and event go in before anything else touches their table, and a rolled-back transaction keeps them", async () => {
    const id = await createThread({ agent: "robustness" });
    const out = await inThread(id, (i) => {
      const { calls, events } = i.store;
      const sent: number[] = [];
      const row = (callId: string) => ({ callId, toolName: "emit_blob", source: "direct", status: "started", argsText: "{}", input: {}, effectKey: `${id}:${callId}` });
      calls.hold(row("held_a"));
      events.hold("tool_call_started", { callId: "held_a" }, (f: EventFrame) => sent.push(f.seq), Date.now(), '{"callId":"held_a"}');
      // Another call's row and event: the held ones come first.
      calls.insert({ ...row("plain_b"), status: "queued" });
      const plain = events.append("probe", { n: 1 });
      const afterInsert = { listed: [...calls.list()].map((c: { callId: string }) => c.callId), sent: [...sent], plainSeq: plain.seq };
      // A held row is stored before a transaction begins, so its rollback leaves it.
      calls.hold(row("held_c"));
      events.hold("tool_call_started", { callId: "held_c" }, (f: EventFrame) => sent.push(f.seq), Date.now(), '{"callId":"held_c"}');
      try {
        i.store.atomically(() => {
          events.append("rolled_back", {});
          throw new Error("roll back");
        });
      } catch {
        // expected
      }
      const afterRollback = { row: calls.get("held_c")?.status, types: events.since(0).map((f: EventFrame) => f.type) };
      // A read of the log stores a held event; finishing a held row writes it final at once.
      calls.hold(row("held_d"));
      const finished = calls.finish("held_d", "succeeded", { status: "success", result: "ok" }, { attempts: 1, durationMs: 0 });
      return { afterInsert, afterRollback, finished, d: calls.get("held_d"), holding: calls.holding() || events.holding() };
    });
    expect(out.afterInsert).toEqual({ listed: ["held_a", "plain_b"], sent: [2], plainSeq: 3 });
    expect(out.afterRollback).toEqual({ row: "started", types: ["thread_created", "tool_call_started", "probe", "tool_call_started"] });
    expect(out.finished).toBe(true);
    expect(out.d).toMatchObject({ callId: "held_d", status: "succeeded", attempts: 1, result: { status: "success", result: "ok" } });
    expect(out.holding).toBe(false);
  });
});

describe("held events", () => {
  it("several held events go in with the next append in order, each sent once it is stored, and a failed statement keeps them held", async () => {
    const id = await createThread({ agent: "robustness" });
    const out = await inThread(id, (i) => {
      const { events } = i.store;
      const sent: string[] = [];
      const before = events.lastSeq();
      for (const n of [1, 2, 3]) events.hold("held", { n }, (f: EventFrame) => sent.push(`${f.seq}:${(f.data as { n: number }).n}`), Date.now(), `{"n":${n}}`);
      const sentBeforeAppend = sent.length;
      const plain = events.append("plain", { n: 4 });
      // A row SQLite refuses (data must not be NULL): nothing of the statement lands, the held event stays held.
      events.hold("held", { n: 5 }, (f: EventFrame) => sent.push(`${f.seq}:${(f.data as { n: number }).n}`), Date.now(), '{"n":5}');
      let refused = "";
      try {
        events.append("bad", undefined, Date.now(), null as unknown as string);
      } catch (e) {
        refused = (e as Error).message;
      }
      const heldAfterRefusal = events.holding();
      const last = events.lastSeq();
      const stored = events.since(before).map((f: EventFrame) => `${f.seq}:${f.type}`);
      return { before, sentBeforeAppend, plainSeq: plain.seq, sent, refused: refused !== "", heldAfterRefusal, last, stored };
    });
    const b = out.before;
    expect(out.sentBeforeAppend).toBe(0);
    expect(out.plainSeq).toBe(b + 4);
    expect(out.refused).toBe(true);
    expect(out.heldAfterRefusal).toBe(true);
    expect(out.sent).toEqual([`${b + 1}:1`, `${b + 2}:2`, `${b + 3}:3`, `${b + 5}:5`]);
    expect(out.last).toBe(b + 5);
    expect(out.stored).toEqual([`${b + 1}:held`, `${b + 2}:held`, `${b + 3}:held`, `${b + 4}:plain`, `${b + 5}:held`]);
  });
});

describe("a stored frame's text for sockets", () => {
  it("is what JSON.stringify makes of the frame, built from the text the row stored", async () => {
    const id = await createThread({ agent: "robustness" });
    const out = await inThread(id, async (i) => {
      const { frameText } = await import("../../../src/event-rows.js");
      const samples: unknown[] = [null, 0, "plain", 'quote " and \\ and \u2028 and é', { nested: { list: [1, "two", null, true] } }, [], { at: new Date(0) }, undefined];
      return samples.map((data) => {
        const frame = i.store.events.append("probe.sample", data);
        return [frameText(frame), JSON.stringify(frame)];
      });
    });
    for (const [built, plain] of out) expect(built).toBe(plain);
  });
});
