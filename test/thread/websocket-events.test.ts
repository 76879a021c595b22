import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isoTime } from "../../src/event-time.js";
import { createThread, eventsOf, inThread, json, request, runTurn, stubOf, subscribe } from "../helpers.js";
import { ONE_TOOL_TURN_TYPES } from "../frames.js";

describe("WebSocket events", () => {
  it("sends every frame as { seq, type, data, at } with gap-free seq", async () => {
    const id = await createThread();
    const sub = await subscribe(id);
    await runTurn(id, "hi", [{ toolCalls: [{ name: "get_server_time", arguments: {} }] }, { text: "bye" }]);
    await sub.until((f) => f.some((e) => e.type === "turn_finished"));
    sub.close();
    expect(sub.frames.map((f) => f.seq)).toEqual(sub.frames.map((_, i) => i + 1));
    for (const f of sub.frames) {
      expect(Object.keys(f).sort()).toEqual(["at", "data", "seq", "type"]);
      expect(new Date(f.at).toISOString()).toBe(f.at);
    }
    expect(sub.frames.map((f) => f.type)).toEqual([...ONE_TOOL_TURN_TYPES]);
  });

  it("a client that drops and reconnects with since misses nothing and sees nothing twice", async () => {
    const id = await createThread();
    const first = await subscribe(id, 0);
    await runTurn(id, "one", [{ toolCalls: [{ name: "get_server_time", arguments: {} }] }, { text: "a" }]);
    await first.until((f) => f.some((e) => e.type === "turn_finished"));
    const seen = first.frames.slice(0, 6); // drop part-way, as if the network went
    first.close();
    // Events keep coming while the client is away.
    await runTurn(id, "two", [{ text: "b" }]);
    const last = seen.at(-1)!.seq;
    const again = await subscribe(id, last);
    await runTurn(id, "three", [{ text: "c" }]);
    const total = (await json("GET", `/threads/${id}`)).body.lastSeq as number;
    await again.until((f) => (f.at(-1)?.seq ?? 0) >= total);
    again.close();
    const all = [...seen, ...again.frames].map((f) => f.seq);
    expect(all).toEqual(Array.from({ length: total }, (_, i) => i + 1));
  });

  it("replays from the newest seq as live-only, and refuses a since it cannot honour with 400", async () => {
    const id = await createThread();
    for (const since of ["-1", "1e2", "0x3", "%203", "2"]) {
      const bad = await request(`/threads/${id}/ws?since=${since}`, { headers: { Upgrade: "websocket" } });
      expect([since, bad.status]).toEqual([since, 400]); // "2" is past the newest seq (1)
      expect((await bad.json<any>()).error).toMatchObject({ code: "invalid_request", details: { path: ["since"] } });
    }
    const noUpgrade = await request(`/threads/${id}/ws`);
    expect(noUpgrade.status).toBe(426);
    expect((await noUpgrade.json<any>()).error).toEqual({ code: "upgrade_required", message: "expected a WebSocket upgrade (Upgrade: websocket)" });
    const sub = await subscribe(id, 1);
    await runTurn(id, "x", [{ text: "y" }]);
    await sub.until((f) => f.some((e) => e.type === "turn_finished"));
    sub.close();
    expect(sub.frames[0]!.seq).toBe(2); // live frames only: nothing at or before the cursor
    await stubOf(id).waitIdle();
  });

  it("delivers a tool's custom events and refuses built-in names", async () => {
    const id = await createThread();
    const outcome = await inThread(id, (instance): string => {
      instance.world.emitCustom("progress", { current: 5, total: 10 });
      try {
        instance.world.emitCustom("turn_finished", {});
        return "accepted";
      } catch (e) {
        return String((e as { code?: unknown }).code);
      }
    });
    expect(outcome).toBe("invalid_request");
    const sub = await subscribe(id, 0);
    await sub.until((f) => f.some((e) => e.type === "progress"));
    sub.close();
    expect(sub.frames.find((f) => f.type === "progress")!.data).toEqual({ current: 5, total: 10 });
  });

  it("a tool's burst goes to a batched socket as one message with its call's started and finished events", async () => {
    const id = await createThread({ agent: "robustness" });
    const batched = await subscribe(id, (await eventsOf(id)).at(-1)!.seq, true);
    const answer = await json("POST", "/v1/tools/emit_burst", { input: { count: 200, bytes: 40 }, sessionId: id });
    expect(answer.status).toBe(200);
    await batched.until((f) => f.some((e) => e.type === "tool_call_finished"));
    batched.close();
    expect(batched.frames.map((f) => f.type)).toEqual(["tool_call_started", ...Array<string>(200).fill("tick"), "tool_call_finished"]);
    expect(batched.messages).toBe(1);
  });

  it("with ?batch=1 a burst arrives as JSON arrays of frames: the same frames, seq order, no gap, replay too", async () => {
    const id = await createThread();
    const plain = await subscribe(id, 0);
    const batched = await subscribe(id, 0, true);
    // One synchronous burst of 300 custom events, each ~600 bytes: more than one batch message.
    const emitted = await inThread(id, (instance): number => {
      for (let i = 0; i < 300; i++) instance.world.emitCustom("progress", { i, text: "x".repeat(600) });
      return instance.store.events.lastSeq();
    });
    await plain.until((f) => (f.at(-1)?.seq ?? 0) >= emitted);
    await batched.until((f) => (f.at(-1)?.seq ?? 0) >= emitted);
    plain.close();
    batched.close();
    expect(batched.frames).toEqual(plain.frames);
    expect(batched.frames.map((f) => f.seq)).toEqual(Array.from({ length: emitted }, (_, i) => i + 1));
    expect(plain.messages).toBe(emitted);
    expect(batched.arrays).toBe(batched.messages);
    expect(batched.messages).toBeGreaterThan(1); // 300 x ~600 bytes is over one message's bound
    expect(batched.messages).toBeLessThan(10);
    // A batched reconnect replays from its cursor as arrays.
    const again = await subscribe(id, 100, true);
    await again.until((f) => (f.at(-1)?.seq ?? 0) >= emitted);
    again.close();
    expect(again.frames.map((f) => f.seq)).toEqual(Array.from({ length: emitted - 100 }, (_, i) => i + 101));
    expect(again.arrays).toBe(again.messages);
    for (const bad of ["2", "yes", "true"]) {
      const res = await request(`/threads/${id}/ws?batch=${bad}`, { headers: { Upgrade: "websocket" } });
      expect([bad, res.status]).toEqual([bad, 400]);
      expect((await res.json<any>()).error).toMatchObject({ code: "invalid_request", details: { path: ["batch"] } });
    }
  });
});

describe("event times", () => {
  it("isoTime gives what toISOString gives, for any time and in any order (its per-second cache included)", () => {
    const MAX = 8.64e15; // the largest time a Date holds
    const same = (now: number) => expect(isoTime(now)).toBe(new Date(now).toISOString());
    for (const now of [0, 1, 9, 10, 99, 100, 999, 1000, 1001, -1, -999, -1000, -1001, 1764520000123, 253402300799999, 253402300800000, MAX, -MAX, 1.5, -0.5]) same(now);
    expect(() => isoTime(Number.NaN)).toThrow(RangeError);
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.integer({ min: -MAX, max: MAX }), fc.integer({ min: 1764520000000, max: 1764520003000 })), { minLength: 1, maxLength: 20 }), (times) => {
        for (const now of times) same(now);
      }),
    );
  });
});
