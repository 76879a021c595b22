/**
 * The reducer behind `useThread` (src/react/state.ts), frame by frame: frames seen again change
 * nothing, streaming text grows per step and is cleared by its `model_step`, a discarded attempt,
 * or the turn's end, calls go from requested to their record's status, and the turn events set
 * the thread's status. The browser test (e2e/react.test.ts) checks the same against a real weft.
 */
import { describe, expect, it } from "vitest";
import type { EventFrame } from "../../src/client/index.ts";
import { type ThreadState, initialState, reduce } from "../../src/react/state.ts";

let seq = 0;
const frame = (type: string, data: unknown): EventFrame => ({ seq: ++seq, type, data, at: "2026-01-01T00:00:00.000Z" }) as EventFrame;
const fold = (state: ThreadState, ...frames: EventFrame[]) => frames.reduce((s, f) => reduce(s, { kind: "frame", frame: f }), state);
const message = (id: number, role: string, content: string, extra: object = {}) => ({ id, role, content, silent: false, createdAt: 0, ...extra });

describe("useThread's reducer", () => {
  it("ignores a frame at or below lastSeq, and a message it already has", () => {
    seq = 0;
    const created = frame("message_created", { message: message(1, "user", "hi") });
    const once = fold(initialState("t"), created);
    expect(reduce(once, { kind: "frame", frame: created })).toBe(once);
    const again = fold(once, frame("message_created", { message: message(1, "user", "hi") }));
    expect(again.messages).toHaveLength(1);
    expect(again.lastSeq).toBe(2);
  });

  it("keeps messages in id order and silent ones too (the hook filters them)", () => {
    seq = 0;
    const s = fold(initialState("t"), frame("message_created", { message: message(2, "assistant", "b") }), frame("message_created", { message: message(1, "user", "a", { silent: true }) }));
    expect(s.messages.map((m) => [m.id, m.silent])).toEqual([[1, true], [2, false]]);
  });

  it("streams a step's text, starts over for the next step, and clears it at model_step, a discard, and the turn's end", () => {
    seq = 0;
    let s = fold(initialState("t"), frame("turn_started", { turnId: "u" }), frame("text_delta", { turnId: "u", step: 1, delta: "Hel" }), frame("text_delta", { turnId: "u", step: 1, delta: "lo" }));
    expect(s.streaming?.text).toBe("Hello");
    expect(s.status).toBe("running");
    s = fold(s, frame("model_step", { turnId: "u", step: 1, text: "Hello", toolCalls: [] }));
    expect(s.streaming).toBeNull();
    s = fold(s, frame("text_delta", { turnId: "u", step: 2, delta: "cut" }), frame("model_step_discarded", { turnId: "u", step: 2, attempt: 1, reason: "reset" }));
    expect(s.streaming).toBeNull();
    s = fold(s, frame("text_delta", { turnId: "u", step: 2, delta: "Again" }));
    expect(s.streaming?.text).toBe("Again");
    s = fold(s, frame("turn_finished", { turnId: "u", status: "failed", steps: 2, error: "boom", errorCode: "stream_cut" }));
    expect(s.streaming).toBeNull();
    expect(s.status).toBe("idle");
    expect(s.lastTurn).toEqual({ turnId: "u", status: "failed", steps: 2, error: "boom", errorCode: "stream_cut" });
  });

  it("follows a call from its streamed arguments to waiting, denied; a discarded step's requested call goes", () => {
    seq = 0;
    let s = fold(
      initialState("t"),
      frame("turn_started", { turnId: "u" }),
      frame("tool_call_delta", { turnId: "u", step: 1, callId: "gone", toolName: "pay", delta: '{"a' }),
      frame("model_step_discarded", { turnId: "u", step: 1, attempt: 1, reason: "reset" }),
    );
    expect(s.calls).toEqual([]);
    s = fold(s, frame("tool_call_delta", { turnId: "u", step: 1, callId: "c", toolName: "pay", delta: '{"amount":' }), frame("tool_call_delta", { turnId: "u", step: 1, callId: "c", toolName: "pay", delta: "5}" }));
    expect(s.calls).toMatchObject([{ callId: "c", status: "requested", arguments: '{"amount":5}' }]);
    s = fold(
      s,
      frame("model_step", { turnId: "u", step: 1, text: "", toolCalls: [{ id: "c", name: "pay", arguments: '{"amount":5}' }] }),
      frame("tool_call_approval_requested", { callId: "c", toolName: "pay", input: { amount: 5 }, argsHash: "h" }),
      frame("turn_waiting", { turnId: "u", callIds: ["c"] }),
    );
    expect(s.status).toBe("waiting");
    expect(s.calls).toMatchObject([{ callId: "c", status: "awaiting_approval", input: { amount: 5 }, argsHash: "h" }]);
    s = fold(s, frame("tool_call_finished", { callId: "c", toolName: "pay", source: "model", status: "denied", isError: true, error: "denied: no", durationMs: 0, attempts: 0 }));
    expect(s.calls).toMatchObject([{ callId: "c", status: "denied", isError: true, error: "denied: no" }]);
    expect(s.calls).toHaveLength(1);
  });

  it("marks a client tool's parked call as this client's to answer, with its input; a person's park is not", () => {
    seq = 0;
    let s = fold(
      initialState("t"),
      frame("turn_started", { turnId: "u" }),
      frame("model_step", { turnId: "u", step: 1, text: "", toolCalls: [{ id: "pick", name: "pick_file", arguments: '{"prompt":"a"}' }, { id: "w", name: "pay", arguments: "{}" }] }),
      frame("tool_call_started", { callId: "pick", toolName: "pick_file", source: "model", input: { prompt: "a" } }),
      frame("tool_call_parked", { callId: "pick", toolName: "pick_file", reason: "waiting for the client's answer", client: true, input: { prompt: "a" } }),
      frame("tool_call_parked", { callId: "w", toolName: "pay", reason: "interrupted by a restart" }),
      frame("turn_waiting", { turnId: "u", callIds: ["pick", "w"] }),
    );
    expect(s.calls).toMatchObject([
      { callId: "pick", status: "parked", client: true, input: { prompt: "a" } },
      { callId: "w", status: "parked" },
    ]);
    expect(s.calls[1]!.client).toBeUndefined();
    s = fold(s, frame("tool_call_finished", { callId: "pick", toolName: "pick_file", source: "model", status: "succeeded", isError: false, result: "a.txt", durationMs: 5, attempts: 1 }));
    expect(s.calls[0]).toMatchObject({ status: "succeeded", result: "a.txt" });
  });

  it("keeps the last data of each event type a tool emitted, and none of weft's own", () => {
    seq = 0;
    const s = fold(
      initialState("t"),
      frame("cart", { items: ["a"] }),
      frame("turn_started", { turnId: "u" }),
      frame("code_progress", { callId: "c", progress: 0.5 }),
      frame("constructor", 1),
      frame("cart", { items: ["a", "b"] }),
    );
    expect({ ...s.emitted }).toEqual({ cart: { items: ["a", "b"] }, constructor: 1 });
    expect(initialState("t").emitted.constructor).toBeUndefined();
    expect(initialState("t").emitted.toString).toBeUndefined();
    // A frame seen again changes nothing.
    expect(reduce(s, { kind: "frame", frame: { seq: 1, type: "cart", data: "old", at: "" } as EventFrame })).toBe(s);
  });

  it("a reset starts over on another thread", () => {
    seq = 0;
    const s = fold(initialState("t"), frame("message_created", { message: message(1, "user", "hi") }));
    expect(reduce(s, { kind: "reset", threadId: "v" })).toEqual(initialState("v"));
  });
});
